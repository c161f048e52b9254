package io.locked.contract;

import io.locked.api.LockException;
import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The read/write keys of a randomized run, apart from its exclusive keys: each key's accesses, judged by
 * {@link ReadWriteHistoryChecker}, and a writer's token above all of them once the run is over.
 */
final class ReadWriteKeys {
    /** No read/write keys: a run of exclusive locks only. */
    static final ReadWriteKeys NONE = new ReadWriteKeys("", 0, Set.of());
    private final List<String> keys;
    private final Set<LockMode> modes;
    private final Map<String, List<ReadWriteHistoryChecker.Access>> accesses = new LinkedHashMap<>();

    /**
     * @param prefix   what the keys start with
     * @param keyCount how many
     * @param modes    the modes the store gives read/write locks in
     */
    ReadWriteKeys(String prefix, int keyCount, Set<LockMode> modes) {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < keyCount; i++) {
            names.add(prefix + i);
            accesses.put(prefix + i, new ArrayList<>());
        }
        this.keys = List.copyOf(names);
        this.modes = Set.copyOf(modes);
    }

    List<String> keys() {
        return keys;
    }

    /** @return the modes to draw from, in a fixed order, so that a seed draws the same */
    List<LockMode> modes() {
        return modes.stream().sorted().toList();
    }

    boolean isEmpty() {
        return keys.isEmpty() || modes.isEmpty();
    }

    /**
     * @param key     the read/write key
     * @param held    the handle the section held ({@link LockHandle#key()} names its row)
     * @param writer  whether it was a write
     * @param section the section, its holder "process/thread#operation" and mode
     */
    void record(String key, LockHandle held, boolean writer, CriticalSection section) {
        List<ReadWriteHistoryChecker.Access> list = accesses.get(key);
        synchronized (list) {
            list.add(new ReadWriteHistoryChecker.Access(writer, Places.of(held), section));
        }
    }

    /** @return every access of a key, a copy */
    List<ReadWriteHistoryChecker.Access> accesses(String key) {
        List<ReadWriteHistoryChecker.Access> list = accesses.get(key);
        synchronized (list) {
            return new ArrayList<>(list);
        }
    }

    /** @return every section of every key, with its key */
    Map<String, List<CriticalSection>> sections() {
        Map<String, List<CriticalSection>> sections = new LinkedHashMap<>();
        keys.forEach(key -> sections.put(key, accesses(key).stream().map(ReadWriteHistoryChecker.Access::section).toList()));
        return sections;
    }

    /** A write after the run gets a token above every token recorded on its key. */
    List<String> writeAfterTheRun(LockManager operator) {
        List<String> problems = new ArrayList<>();
        for (String key : keys) {
            long highest = accesses(key).stream().mapToLong(access -> access.section().token()).max().orElse(0);
            LockRequest write = LockRequest.of(key).mode(LockMode.OPTIMISTIC).maxWait(Duration.ofSeconds(10)).write();
            try (LockHandle after = operator.acquire(write)) {
                if (after.token() <= highest) {
                    problems.add("read/write '" + key + "' after the run: a writer's token " + after.token() + ", not above " + highest);
                }
            } catch (LockException failed) {
                problems.add("read/write '" + key + "' takes no writer after the run: " + failed);
            }
        }
        return problems;
    }

    /** @return the history of every key, each access in order of entry, to read a failure by */
    String history() {
        StringBuilder text = new StringBuilder();
        for (String key : keys) {
            text.append("read/write key ").append(key).append('\n');
            accesses(key).stream().sorted(Comparator.comparingLong(access -> access.section().enterNanos()))
                    .forEach(access -> text.append("  ").append(access.writer() ? "W " : "R ")
                            .append(access.row().replace('\u001F', '#')).append(' ').append(access.section().toLine()).append('\n'));
        }
        return text.toString();
    }
}
