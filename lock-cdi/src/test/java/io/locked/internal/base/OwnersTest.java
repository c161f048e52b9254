package io.locked.internal.base;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Owners are distinct, of many threads at once, and fit the owner column as a UUID's text. */
class OwnersTest {

    @Test
    void ownersOfManyThreadsAreDistinctAndFitTheColumn() {
        Set<String> seen = ConcurrentHashMap.newKeySet();
        int each = 20_000;
        IntStream.range(0, 8).parallel().forEach(thread -> {
            for (int i = 0; i < each; i++) {
                String owner = Owners.next();
                assertEquals(36, owner.length(), owner);
                assertEquals(owner, UUID.fromString(owner).toString(), "not a UUID's text: " + owner);
                assertTrue(seen.add(owner), "given twice: " + owner);
            }
        });
        assertEquals(8 * each, seen.size());
    }
}
