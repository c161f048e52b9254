-- Lock table for PostgreSQL 12+. Times are written by the database (clock_timestamp()).
CREATE TABLE IF NOT EXISTS locked_lock (
    lock_key    VARCHAR(255) NOT NULL PRIMARY KEY,
    version     BIGINT       NOT NULL DEFAULT 0,
    token       BIGINT       NOT NULL DEFAULT 0,
    owner       VARCHAR(36),
    acquired_at TIMESTAMP(6) WITH TIME ZONE,
    expires_at  TIMESTAMP(6) WITH TIME ZONE,
    holder      VARCHAR(255)
);

-- Fence table of io.locked.jpa.LockFence: per key, the highest token that has written through the
-- fence. It must be in the database of the transactions it fences. Rows are never deleted.
CREATE TABLE IF NOT EXISTS locked_fence (
    lock_key VARCHAR(255) NOT NULL PRIMARY KEY,
    token    BIGINT       NOT NULL
);
