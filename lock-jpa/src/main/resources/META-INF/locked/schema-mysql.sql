-- Lock table for MariaDB 10.6+. Keys compare exactly: utf8mb4_nopad_bin is binary (so 'Order:1'
-- and 'order:1' are two locks) and NO PAD (so are 'k' and 'k ', which utf8mb4_bin, padding
-- trailing spaces, would make one lock). MySQL 8 has a script of its own, schema-mysql8.sql. The
-- text columns name their character set, so that a database created with another default still
-- stores any key and any thread name. Times are UTC, written by the database.
-- A table created by an earlier version of this script is refused at start-up. Convert it with
--   ALTER TABLE locked_lock
--     MODIFY lock_key VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
--     MODIFY owner VARCHAR(36) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NULL,
--     MODIFY holder VARCHAR(255) CHARACTER SET utf8mb4 NULL
CREATE TABLE IF NOT EXISTS locked_lock (
    lock_key    VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
    version     BIGINT       NOT NULL DEFAULT 0,
    token       BIGINT       NOT NULL DEFAULT 0,
    owner       VARCHAR(36)  CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NULL,
    acquired_at DATETIME(6)  NULL,
    expires_at  DATETIME(6)  NULL,
    holder      VARCHAR(255) CHARACTER SET utf8mb4 NULL,
    PRIMARY KEY (lock_key)
) ENGINE = InnoDB;

-- Fence table of io.locked.jpa.LockFence: per key, the highest token that has written through the
-- fence. It must be in the database of the transactions it fences. Rows are never deleted. Its key
-- compares like the lock table's. One created by an earlier script is refused at start-up. Convert it with
--   ALTER TABLE locked_fence MODIFY lock_key VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL
CREATE TABLE IF NOT EXISTS locked_fence (
    lock_key VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
    token    BIGINT       NOT NULL,
    PRIMARY KEY (lock_key)
) ENGINE = InnoDB;
