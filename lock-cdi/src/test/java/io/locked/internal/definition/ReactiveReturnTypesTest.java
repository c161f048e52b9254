package io.locked.internal.definition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.Locked;
import io.locked.api.OnTimeout;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which reactive return types {@code @Locked} takes, and the deployment error for the one it refuses. */
class ReactiveReturnTypesTest {

    static class Streams {
        @Locked
        public Uni<String> item() {
            return null;
        }

        @Locked(onTimeout = OnTimeout.SKIP)
        public Uni<Void> skippable() {
            return null;
        }

        @Locked(onTimeout = OnTimeout.SKIP)
        public Uni<String> notSkippable() {
            return null;
        }

        @Locked
        public Multi<String> stream() {
            return null;
        }
    }

    private static Resolution resolve(String method) throws Exception {
        return LockedDefinitions.resolve(Streams.class, Streams.class.getMethod(method), name -> Optional.empty());
    }

    @Test
    void aUniIsHeldUntilItTerminatesAndAUniOfVoidCanBeSkipped() throws Exception {
        assertEquals(ReturnKind.UNI, resolve("item").settings().returnKind());
        assertEquals(ReturnKind.UNI_OF_VOID, resolve("skippable").settings().returnKind());
        List<String> errors = resolve("notSkippable").errors();
        assertEquals(1, errors.size(), errors::toString);
        assertTrue(errors.get(0).contains("Uni<Void>"), errors.get(0));
    }

    @Test
    void aMultiIsRefusedAtDeploymentWithTheReasonAndWhatToDoInstead() throws Exception {
        List<String> errors = resolve("stream").errors();
        assertEquals(1, errors.size(), errors::toString);
        assertTrue(errors.get(0).startsWith("Invalid @Locked on " + Streams.class.getName() + "#stream(): it returns "
                + "io.smallrye.mutiny.Multi<java.lang.String>, a stream"), errors.get(0));
        assertTrue(errors.get(0).contains("return a Uni"), errors.get(0));
    }
}
