package io.locked.simulation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.locked.internal.exclusive.ExclusiveSeededBug;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The core in the deterministic simulation ({@link Simulation}): a fixed budget of seeds in CI
 * ({@code -Dlocked.simulation.seeds=N} runs more), one seed with {@code -Dlocked.simulation.seed=S}
 * to replay a failure with its trace. Each negative control seeds a bug and must be found within
 * the budget.
 */
class SimulationTest {
    private static final int CI_SEEDS = Integer.getInteger("locked.simulation.seeds", 1000);
    private static final Long ONE_SEED = Long.getLong("locked.simulation.seed");

    @Test
    void everySeedKeepsThePromises() {
        long first = ONE_SEED == null ? 1 : ONE_SEED;
        long seeds = ONE_SEED == null ? CI_SEEDS : 1;
        long started = System.nanoTime();
        long sections = 0;
        long signalled = 0;
        double virtualSeconds = 0;
        int mostReaders = 0;
        int mostPermits = 0;
        for (long seed = first; seed < first + seeds; seed++) {
            Simulation.Outcome outcome = Simulation.run(seed, Simulation.Settings.CI);
            if (outcome.failed()) {
                fail(outcome.report());
            }
            sections += outcome.sections();
            signalled += outcome.signalled();
            virtualSeconds += outcome.virtualNanos() / 1e9;
            mostReaders = Math.max(mostReaders, outcome.mostReadersAtOnce());
            mostPermits = Math.max(mostPermits, outcome.mostPermitsAtOnce());
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        System.out.printf(java.util.Locale.ROOT, "simulation: %d seeds x %d choices in %.1f s (%.0f choices/s),"
                        + " %.0f virtual seconds, %d critical sections, %d overlaps told to their holder%n",
                seeds, Simulation.Settings.CI.steps(), seconds, seeds * Simulation.Settings.CI.steps() / seconds,
                virtualSeconds, sections, signalled);
        assertTrue(sections > seeds * 10, "the runs entered too few critical sections to judge: " + sections);
        if (ONE_SEED == null) {
            assertTrue(mostReaders > 1, "no two readers ever shared the read/write lock: its check proved nothing");
            // more than two at once are holders told of their loss still at work, which the checker allows
            assertTrue(mostPermits >= 2, "the two permits were never both held: their check proved nothing");
        }
    }

    @Test
    void theSameSeedRunsTheSameWay() {
        Simulation.Outcome once = Simulation.run(7, Simulation.Settings.CI);
        Simulation.Outcome again = Simulation.run(7, Simulation.Settings.CI);
        assertEquals(once.trace(), again.trace(), "a seed must replay exactly");
    }

    /** Negative control: a pessimistic holder whose session ended before its release is not told at the release. */
    @Test
    void theSimulationFindsALossAtReleaseNotTold() {
        found(Simulation.Settings.CI.withBug(ExclusiveSeededBug.LOSS_AT_RELEASE_UNTOLD), "LOSS_AT_RELEASE_UNTOLD");
    }

    /** Negative control: a renewal that lands after a release that left a minimum hold, and cuts the hold short. */
    @Test
    void theSimulationFindsALateRenewalThatCutsAMinimumHold() {
        found(Simulation.Settings.CI.withBug(SimulatedStore.StoreBug.RENEWAL_SHORTENS_A_HOLD), "RENEWAL_SHORTENS_A_HOLD");
    }

    private static void found(Simulation.Settings settings, String bug) {
        Optional<Simulation.Outcome> found = firstFailure(settings);
        assertTrue(found.isPresent(), "no seed of " + CI_SEEDS + " found " + bug);
        System.out.println(bug + " found at seed " + found.get().seed() + ": " + found.get().violations().get(0));
    }

    private static Optional<Simulation.Outcome> firstFailure(Simulation.Settings settings) {
        for (long seed = 1; seed <= CI_SEEDS; seed++) {
            Simulation.Outcome outcome = Simulation.run(seed, settings);
            if (outcome.failed()) {
                return Optional.of(outcome);
            }
        }
        return Optional.empty();
    }
}
