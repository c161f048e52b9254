package io.locked.jpa.internal.dialect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.locked.jpa.LockDatabase;
import org.junit.jupiter.api.Test;

class InlinedStatementTest {

    @Test
    void writesStringsAsHexadecimalUtf8BehindAnIntroducerAndNumbersAsDigits() {
        InlinedStatement statement = new InlinedStatement("UPDATE t SET a = ?, b = ? WHERE k = ?");
        assertEquals("UPDATE t SET a = _utf8mb4 X'69742773', b = -42 WHERE k = _utf8mb4 X'5c27f09f9492'",
                statement.with("it's", -42L, "\\'\uD83D\uDD12"));
    }

    @Test
    void anEmptyStringIsAnEmptyLiteral() {
        assertEquals("k = _utf8mb4 X''", new InlinedStatement("k = ?").with(""));
    }

    @Test
    void refusesAWrongCountOrType() {
        InlinedStatement statement = new InlinedStatement("k = ? AND v = ?");
        assertThrows(IllegalArgumentException.class, () -> statement.with("only one"));
        assertThrows(IllegalArgumentException.class, () -> statement.with("k", 1));
        assertThrows(IllegalArgumentException.class, () -> statement.with(null, 1L));
    }

    @Test
    void everyInlinedLockStatementTakesTheValuesItIsGiven() {
        // with() refuses a count that does not match the placeholders
        for (Dialect database : new Dialect[] {Dialect.of(LockDatabase.MARIADB), Dialect.of(LockDatabase.MYSQL)}) {
            database.lockRowText("holder", "key", 5000, false);
            database.lockRowText("holder", "key", 5000, true);
            database.takeLeaseText("owner", "holder", 30_000_000, "key", 5000, false);
        }
    }
}
