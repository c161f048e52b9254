package io.locked.internal.operations;

import io.locked.api.HolderKind;
import io.locked.api.LockInfo;
import io.locked.api.LockMode;
import io.locked.internal.base.Holder;
import io.locked.internal.base.RowKeys;
import io.locked.spi.LockRowState;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;

/** An operator's view of one row of the lock table: its holder's place, and the row as the store read it. */
final class RowInfo implements LockInfo {
    private final RowKeys.Place place;
    private final LockRowState row;
    private final boolean heldByThisJvm;

    private RowInfo(RowKeys.Place place, LockRowState row) {
        this.place = place;
        this.row = row;
        this.heldByThisJvm = row.held() && Holder.isThisJvm(row.holder());
    }

    /** @return the row's view, or null for a row that is no holder's (a read/write lock's shared row) */
    static RowInfo of(LockRowState row) {
        RowKeys.Place place = RowKeys.place(row.key());
        return place == null ? null : new RowInfo(place, row);
    }

    /** @return the view of a place the table has no row for: free, never held */
    static RowInfo free(String key) {
        return new RowInfo(new RowKeys.Place(key, HolderKind.EXCLUSIVE, 0),
                new LockRowState(key, null, null, null, null, null, null, null));
    }

    /** @return the row's key in the table */
    String rowKey() {
        return row.key();
    }

    @Override
    public String key() {
        return place.key();
    }

    @Override
    public HolderKind kind() {
        return place.kind();
    }

    @Override
    public int slot() {
        return place.slot();
    }

    @Override
    public boolean held() {
        return row.held();
    }

    @Override
    public Optional<LockMode> mode() {
        return Optional.ofNullable(row.mode());
    }

    @Override
    public Optional<String> holder() {
        return Optional.ofNullable(row.holder());
    }

    @Override
    public OptionalLong token() {
        return row.token() == null ? OptionalLong.empty() : OptionalLong.of(row.token());
    }

    @Override
    public Optional<Instant> since() {
        return Optional.ofNullable(row.since());
    }

    @Override
    public Optional<Instant> until() {
        return Optional.ofNullable(row.until());
    }

    @Override
    public Optional<String> databaseSession() {
        return Optional.ofNullable(row.databaseSession());
    }

    @Override
    public boolean heldByThisJvm() {
        return heldByThisJvm;
    }

    /** @return the holder's place as a log line names it: {@code 'k'}, {@code 'k' (READER 3)} */
    static String describe(LockInfo holder) {
        return "'" + holder.key() + "'" + (holder.kind() == HolderKind.EXCLUSIVE ? ""
                : " (" + holder.kind() + (holder.slot() == 0 ? "" : " " + holder.slot()) + ")");
    }

    @Override
    public String toString() {
        return "LockInfo[" + key() + (kind() == HolderKind.EXCLUSIVE ? "" : ", " + kind() + (slot() == 0 ? "" : " " + slot()))
                + (held() ? ", held " + row.mode() + " by " + row.holder() : ", free") + ", token " + row.token()
                + (row.since() == null ? "" : ", since " + row.since()) + (row.until() == null ? "" : ", until " + row.until())
                + (row.databaseSession() == null ? "" : ", session " + row.databaseSession()) + "]";
    }
}
