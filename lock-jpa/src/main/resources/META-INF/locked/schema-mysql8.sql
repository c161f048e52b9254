-- Lock table for MySQL 8.0+. Keys compare exactly: the key is VARBINARY, compared byte by byte
-- (so 'Order:1' and 'order:1' are two locks) and never padded (so are 'k' and 'k '). MySQL 8.0.17+
-- also has utf8mb4_0900_bin, binary and NO PAD, which the start-up check accepts as well. 8.0.15 and
-- 8.0.16 have no such collation (utf8mb4_bin pads trailing spaces, and the *_0900_as_cs collations make
-- 'é' and 'e' + U+0301 one key). 1020 bytes hold any key of 255 characters in UTF-8. The text
-- columns name their character set, so that a database created with another default still stores
-- any thread name. Times are UTC, written by the database. A table whose key would not compare
-- exactly is refused at start-up. Convert it with
--   ALTER TABLE locked_lock MODIFY lock_key VARBINARY(1020) NOT NULL,
--     MODIFY holder VARCHAR(255) CHARACTER SET utf8mb4 NULL
CREATE TABLE IF NOT EXISTS locked_lock (
    lock_key    VARBINARY(1020) NOT NULL,
    version     BIGINT       NOT NULL DEFAULT 0,
    token       BIGINT       NOT NULL DEFAULT 0,
    owner       VARCHAR(36)  CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
    acquired_at DATETIME(6)  NULL,
    expires_at  DATETIME(6)  NULL,
    holder      VARCHAR(255) CHARACTER SET utf8mb4 NULL,
    PRIMARY KEY (lock_key)
) ENGINE = InnoDB;

-- Fence table of io.locked.jpa.LockFence: per key, the highest token that has written through the
-- fence. It must be in the database of the transactions it fences. Rows are never deleted. Its key
-- compares like the lock table's. One whose key would not is refused at start-up. Convert it with
--   ALTER TABLE locked_fence MODIFY lock_key VARBINARY(1020) NOT NULL
CREATE TABLE IF NOT EXISTS locked_fence (
    lock_key VARBINARY(1020) NOT NULL,
    token    BIGINT       NOT NULL,
    PRIMARY KEY (lock_key)
) ENGINE = InnoDB;
