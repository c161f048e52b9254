package io.locked.jpa.internal.entitypath;

import io.locked.jpa.internal.dialect.Dialect;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.time.temporal.TemporalAccessor;
import java.util.Arrays;
import java.util.Date;
import java.util.UUID;

/**
 * The database's clock as the JPA path reads it: a JPQL expression whose value is the time at which
 * the database computes it, and its conversion to an instant. "Computed" matters: a pessimistic
 * acquisition draws its token from the clock after its row lock was granted (see {@link Dialect}),
 * so the clock must not be the transaction's start, as {@code CURRENT_TIMESTAMP} is on PostgreSQL and
 * H2; on MySQL, MariaDB, Derby, HSQLDB, Oracle and SQL Server it is the statement's start, which is
 * what a statement sent after the grant needs.
 *
 * @param jpql the expression, for a JPQL select list
 */
public record DatabaseClock(String jpql) {
    private static final DateTimeFormatter UTC_TEXT = new DateTimeFormatterBuilder()
            .appendPattern("yyyy-MM-dd HH:mm:ss").optionalStart()
            .appendFraction(ChronoField.NANO_OF_SECOND, 0, 9, true).optionalEnd()
            .optionalStart().appendOffset("+HH:mm", "Z").optionalEnd().toFormatter();
    /** Any other database: the statement's start. */
    static final DatabaseClock STANDARD = new DatabaseClock("CURRENT_TIMESTAMP");

    /**
     * @param dialect the database, if it has native statements
     * @param factory its persistence unit, whose provider must accept the clock's expression
     * @return the dialect's clock ({@link Dialect#jpqlClocks()}), else the standard one
     */
    public static DatabaseClock of(Dialect dialect, EntityManagerFactory factory) {
        if (dialect == null) {
            return STANDARD;
        }
        return firstAccepted(factory, dialect.jpqlClocks().stream().map(DatabaseClock::new).toArray(DatabaseClock[]::new));
    }

    /** The first form the provider parses; parsing a query sends nothing to the database. */
    private static DatabaseClock firstAccepted(EntityManagerFactory factory, DatabaseClock... forms) {
        EntityManager manager = factory.createEntityManager();
        try {
            for (DatabaseClock form : forms) {
                try {
                    manager.createQuery("SELECT " + form.jpql() + " FROM LockRow r WHERE r.key = :key");
                    return form;
                } catch (IllegalArgumentException refused) {
                    // this provider renders the function its own way: try the next form
                }
            }
        } finally {
            manager.close();
        }
        throw new IllegalStateException("The persistence unit's provider accepts none of Locked's expressions for"
                + " the database's clock: " + Arrays.stream(forms).map(DatabaseClock::jpql).toList());
    }

    /**
     * @param value what the provider read for {@link #jpql()}
     * @return that time as an instant
     */
    Instant instant(Object value) {
        if (value instanceof Instant instant) {
            return instant;
        }
        if (value instanceof Timestamp timestamp) {
            return timestamp.toInstant();
        }
        if (value instanceof OffsetDateTime offset) {
            return offset.toInstant();
        }
        if (value instanceof ZonedDateTime zoned) {
            return zoned.toInstant();
        }
        if (value instanceof LocalDateTime local) {
            // a standard clock read as a local date-time is in the JVM's zone, as the driver meant it
            return local.atZone(ZoneId.systemDefault()).toInstant();
        }
        if (value instanceof String text && !text.isBlank()) {
            String time = text.trim();
            // a time as text: UTC, unless it names its offset (a TIMESTAMP WITH TIME ZONE does)
            TemporalAccessor parsed = UTC_TEXT.parse(time);
            return parsed.isSupported(ChronoField.OFFSET_SECONDS) ? OffsetDateTime.from(parsed).toInstant()
                    : LocalDateTime.from(parsed).toInstant(ZoneOffset.UTC);
        }
        if (value instanceof UUID uuid) {
            long bits = uuid.getMostSignificantBits();
            long millis = bits >>> 16;
            // 12 bits of the millisecond's fraction follow the version
            long micros = (bits & 0xFFF) * 1000 / 4096;
            return Instant.ofEpochMilli(millis).plusNanos(micros * 1000);
        }
        if (value instanceof Date date) {
            return date.toInstant();
        }
        throw new IllegalStateException("The database's clock (" + jpql + ") came back as "
                + (value == null ? "null" : value.getClass().getName()) + ", which Locked cannot read as a time");
    }

    /**
     * The fencing token of an acquisition, as the native statements draw it: above the last one, and
     * at least the clock in microseconds, so that tokens keep increasing after a row was deleted and
     * made again, and after a holder's transaction was rolled back.
     *
     * @param lastToken the row's token as read under its row lock
     * @param now       the clock, read after that lock was granted
     */
    static long nextToken(long lastToken, Instant now) {
        return Math.max(lastToken + 1, micros(now));
    }

    /** @return an instant in microseconds since the epoch, as tokens count */
    static long micros(Instant instant) {
        return instant.getEpochSecond() * 1_000_000 + instant.getNano() / 1000;
    }
}
