package io.locked.internal.base;

/**
 * A bug seeded on purpose into one part of the core, for a negative control of the model checking or the
 * deterministic simulation: each part names its own ({@code ExclusiveSeededBug}, the read/write lock's), and a
 * part ignores the others'. Never set in use.
 */
public interface SeededBug {
}
