package io.locked.jpa.internal.dialect;

import java.nio.charset.StandardCharsets;

/**
 * A MariaDB or MySQL statement sent as text with its values written in, rather than through a
 * {@link java.sql.PreparedStatement}, for the long statements of every lock cycle and for the batches
 * of renewals ({@link RenewalBatch#readRenewed()}), whose 500 placeholders Connector/J would scan and fill
 * on every batch.
 *
 * <p>Why: Connector/J (like the MariaDB driver) prepares on the client by default, and then every
 * {@code prepareStatement} scans the whole text for its placeholders, character by character; pooled
 * connections cache that scan only with {@code cachePrepStmts=true}, and then only for statements
 * shorter than {@code prepStmtCacheSqlLimit} (256 characters by default). The lock statements are
 * 600-900 characters: the scan was about a third of the library's own CPU in a pessimistic cycle
 * (docs/performance.md); for a short statement sent every cycle (a lease's release) the scan and the
 * statement it builds were still an eighth of an optimistic cycle's client CPU
 * (it-tests/reports/2026-12-03-driver-cpu.md). Here the text is split at its placeholders once, and each call joins the
 * parts with the values. The server gets the same kind of text that a client-side prepare sends.
 *
 * <p>A string is written as the hexadecimal digits of its UTF-8 bytes behind a character set
 * introducer ({@code _utf8mb4 X'6b6579'}): nothing in it can end the literal, whatever the server's
 * escaping rules ({@code NO_BACKSLASH_ESCAPES}) or the connection's character set, and as a
 * coercible literal it is compared in the column's collation, through the key's index. A number is
 * written as its digits. The statement text must hold no {@code ?} other than its placeholders.
 */
public final class InlinedStatement {
    private static final char[] HEX = "0123456789abcdef".toCharArray();
    private final String[] parts;
    private final int length;

    /** @param sql a statement whose every {@code ?} is a placeholder */
    public InlinedStatement(String sql) {
        this.parts = sql.split("\\?", -1);
        this.length = sql.length();
    }

    /** @return the number of values {@link #with} takes */
    int placeholders() {
        return parts.length - 1;
    }

    /**
     * @param values one per placeholder, in order: {@link String}s (not null) and {@link Long}s
     * @return the statement's text with the values written in
     * @throws IllegalArgumentException if the count or a type does not fit
     */
    public String with(Object... values) {
        if (values.length != placeholders()) {
            throw new IllegalArgumentException("The statement takes " + placeholders() + " values, not " + values.length);
        }
        int capacity = length;
        for (Object value : values) {
            capacity += value instanceof String text ? 14 + 2 * text.length() : 20; // as ASCII; longer text grows it
        }
        StringBuilder sql = new StringBuilder(capacity).append(parts[0]);
        for (int i = 0; i < values.length; i++) {
            if (values[i] instanceof String text) {
                appendString(sql, text);
            } else if (values[i] instanceof Long number) {
                sql.append(number.longValue());
            } else {
                throw new IllegalArgumentException("Value " + (i + 1) + " is neither a String nor a Long: " + values[i]);
            }
            sql.append(parts[i + 1]);
        }
        return sql.toString();
    }

    private static void appendString(StringBuilder sql, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        sql.append("_utf8mb4 X'");
        for (byte b : bytes) {
            sql.append(HEX[(b >> 4) & 0xf]).append(HEX[b & 0xf]);
        }
        sql.append('\'');
    }
}
