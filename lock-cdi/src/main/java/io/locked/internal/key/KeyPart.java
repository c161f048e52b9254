package io.locked.internal.key;

import java.util.List;

/** A literal piece of a key template, or an argument followed along a property path. */
final class KeyPart {
    private final String literal;
    private final int argumentIndex;
    private final String expression;
    private final List<PropertyStep> steps;

    private KeyPart(String literal, int argumentIndex, String expression, List<PropertyStep> steps) {
        this.literal = literal;
        this.argumentIndex = argumentIndex;
        this.expression = expression;
        this.steps = steps;
    }

    static KeyPart literal(String text) {
        return new KeyPart(text, -1, null, List.of());
    }

    static KeyPart argument(int index, String expression, List<PropertyStep> steps) {
        return new KeyPart(null, index, expression, List.copyOf(steps));
    }

    boolean isLiteral() {
        return literal != null;
    }

    void appendTo(StringBuilder key, Object[] arguments) {
        if (literal != null) {
            key.append(literal);
            return;
        }
        Object value = arguments[argumentIndex];
        for (PropertyStep step : steps) {
            if (value == null) {
                break;
            }
            value = step.read(value);
        }
        if (value == null) {
            throw new IllegalArgumentException("Lock key placeholder {" + expression + "} is null");
        }
        KeyValue.append(key, value, expression);
    }
}
