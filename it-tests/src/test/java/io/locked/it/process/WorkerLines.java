package io.locked.it.process;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Every line the worker JVMs of a test printed, in the order read, the lines of one kind (a
 * section: {@code PERMIT}, {@code ACCESS}) parsed once, and waits for conditions on them.
 *
 * @param <S> the section a line of that kind carries
 */
final class WorkerLines<S> {
    private final String kind;
    private final Function<String, S> parse;
    private final Duration patience;
    private final List<Line<S>> all = new ArrayList<>();

    /**
     * @param kind     the first word of the lines that carry a section
     * @param parse    how the rest of such a line becomes its section
     * @param patience how long a wait may take before the test fails as hung
     */
    WorkerLines(String kind, Function<String, S> parse, Duration patience) {
        this.kind = kind;
        this.parse = parse;
        this.patience = patience;
    }

    /**
     * One line a worker printed, see {@link CycleLoop} and {@link WorkerControl}.
     *
     * @param section for a line of the kind its section, else null
     */
    record Line<S>(int worker, String[] fields, S section) {
        boolean is(String type) {
            return fields[0].equals(type);
        }

        String field(int index) {
            return fields[index];
        }

        @Override
        public String toString() {
            return "worker " + worker + ": " + String.join(" ", fields);
        }
    }

    Consumer<String> sink(int worker) {
        return line -> {
            String[] fields = line.trim().split(" ");
            add(new Line<>(worker, fields, fields[0].equals(kind) ? parse.apply(line.substring(kind.length() + 1)) : null));
        };
    }

    private synchronized void add(Line<S> line) {
        all.add(line);
        notifyAll();
    }

    synchronized List<Line<S>> all() {
        return new ArrayList<>(all);
    }

    /** @return the sections one worker printed, in the order read */
    synchronized List<S> sections(int worker) {
        return all.stream().filter(line -> line.worker() == worker && line.is(kind)).map(Line::section).toList();
    }

    /**
     * @return true once each of those workers printed at least that many sections that count, else
     *         null (for {@link #await})
     */
    Boolean each(List<Line<S>> lines, List<Integer> workers, int atLeast, Predicate<S> counted) {
        int[] count = new int[workers.stream().mapToInt(Integer::intValue).max().orElse(0) + 1];
        lines.stream().filter(line -> line.is(kind) && counted.test(line.section())).forEach(line -> {
            if (line.worker() < count.length) {
                count[line.worker()]++;
            }
        });
        return workers.stream().allMatch(w -> count[w] >= atLeast) ? true : null;
    }

    /** @return the first non-null answer of {@code found}; an AssertionError (a hang) past the patience */
    synchronized <T> T await(String what, Function<List<Line<S>>, T> found) throws InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        for (T answer = found.apply(all); ; answer = found.apply(all)) {
            if (answer != null) {
                return answer;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("no " + what + " within " + patience + "; last lines: "
                        + all.subList(Math.max(0, all.size() - 20), all.size()));
            }
            wait(Math.max(1, left / 1_000_000));
        }
    }
}
