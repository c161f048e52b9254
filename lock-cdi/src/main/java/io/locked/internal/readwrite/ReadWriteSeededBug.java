package io.locked.internal.readwrite;

import io.locked.internal.base.SeededBug;

/**
 * Bugs seeded on purpose into a JVM's readers and writers ({@link LocalReadWrite} and its key states), each one they
 * must not have: the model checking ({@code ReadWriteModelTest}) and the simulation ({@code SimulationTest}) show
 * they find each. Never set in use.
 */
public enum ReadWriteSeededBug implements SeededBug {
    /** A reader joins its JVM's group while a writer of this JVM waits. */
    READER_PAST_WAITING_WRITER,
    /** A reader that formed a group while another formed one replaces the current group blindly. */
    BLIND_FORMING,
    /** The last reader out of a group parked for this JVM's writer does not wake that writer. */
    SILENT_GROUP_END,
    /** A keep's end forgets to release the group kept. */
    KEEP_NEVER_RELEASED,
    /** A writer of this JVM takes the row of a group whose release runs now for a reader's. */
    RELEASE_TAKEN_FOR_A_READER
}
