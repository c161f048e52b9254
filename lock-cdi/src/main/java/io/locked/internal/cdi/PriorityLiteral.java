package io.locked.internal.cdi;

import jakarta.annotation.Priority;
import jakarta.enterprise.util.AnnotationLiteral;

/** {@code @Priority(value)} built at run time (jakarta.annotation has no literal of its own). */
@SuppressWarnings("all")
final class PriorityLiteral extends AnnotationLiteral<Priority> implements Priority {
    private static final long serialVersionUID = 1L;
    private final int value;

    PriorityLiteral(int value) {
        this.value = value;
    }

    @Override
    public int value() {
        return value;
    }
}
