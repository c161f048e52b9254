-- Lock table for MySQL 8 and MariaDB 10.6+. The key is compared byte for byte (utf8mb4_bin):
-- 'Order:1' and 'order:1' are two locks. Times are UTC, written by the database.
CREATE TABLE IF NOT EXISTS locked_lock (
    lock_key    VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    version     BIGINT       NOT NULL DEFAULT 0,
    token       BIGINT       NOT NULL DEFAULT 0,
    owner       VARCHAR(36)  NULL,
    acquired_at DATETIME(6)  NULL,
    expires_at  DATETIME(6)  NULL,
    holder      VARCHAR(255) NULL,
    PRIMARY KEY (lock_key)
) ENGINE = InnoDB;

-- Fence table of io.locked.jpa.LockFence: per key, the highest token that has written through the
-- fence. It must be in the database of the transactions it fences. Rows are never deleted. Its key
-- compares like the lock table's.
CREATE TABLE IF NOT EXISTS locked_fence (
    lock_key VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    token    BIGINT       NOT NULL,
    PRIMARY KEY (lock_key)
) ENGINE = InnoDB;
