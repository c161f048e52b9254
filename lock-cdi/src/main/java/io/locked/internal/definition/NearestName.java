package io.locked.internal.definition;

import java.util.Collection;

/** The name a user probably meant, for the "did you mean" of a warning: the fewest single-character edits away. */
final class NearestName {
    private NearestName() {
    }

    /** @return the candidate nearest the written name, the first of equally near ones; null when there is none */
    static String among(String written, Collection<String> candidates) {
        String nearest = null;
        int fewest = Integer.MAX_VALUE;
        for (String candidate : candidates) {
            int edits = edits(written, candidate);
            if (edits < fewest) {
                fewest = edits;
                nearest = candidate;
            }
        }
        return nearest;
    }

    /** @return the Levenshtein distance: insertions, deletions and substitutions that turn one into the other */
    static int edits(String from, String to) {
        int[] previous = new int[to.length() + 1];
        int[] current = new int[to.length() + 1];
        for (int j = 0; j <= to.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= from.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= to.length(); j++) {
                int substitution = previous[j - 1] + (from.charAt(i - 1) == to.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[to.length()];
    }
}
