package io.locked.internal.key;

import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.List;

/**
 * A lock key template such as {@code order:{orderId}}, {@code stock:{0}} or {@code ship:{order.id}},
 * checked against a method's parameters once, then rendered per call from the arguments.
 */
public final class KeyTemplate {
    private final String text;
    private final List<KeyPart> parts;

    private KeyTemplate(String text, List<KeyPart> parts) {
        this.text = text;
        this.parts = parts;
    }

    /**
     * @param text   the template
     * @param method the method whose parameters the placeholders name
     * @return the compiled template
     * @throws IllegalArgumentException describing the first problem: an unclosed or empty
     *         placeholder, an unknown parameter name or index, a property the parameter's type
     *         does not have, a parameter name used without {@code -parameters}, or a value type
     *         that keeps {@code Object.toString()} (arrays are rendered by their content)
     */
    public static KeyTemplate compile(String text, Method method) {
        List<KeyPart> parts = new ArrayList<>();
        int position = 0;
        while (position < text.length()) {
            int open = text.indexOf('{', position);
            if (open < 0) {
                parts.add(literal(text.substring(position), text));
                break;
            }
            int close = text.indexOf('}', open);
            if (close < 0) {
                throw new IllegalArgumentException("placeholder at position " + open + " is not closed in '" + text + "'");
            }
            if (open > position) {
                parts.add(literal(text.substring(position, open), text));
            }
            parts.add(placeholder(text.substring(open + 1, close).trim(), method, text));
            position = close + 1;
        }
        return new KeyTemplate(text, List.copyOf(parts));
    }

    private static KeyPart literal(String piece, String text) {
        if (piece.indexOf('}') >= 0) {
            throw new IllegalArgumentException("'}' without '{' in '" + text + "'");
        }
        return KeyPart.literal(piece);
    }

    private static KeyPart placeholder(String expression, Method method, String text) {
        if (expression.isEmpty()) {
            throw new IllegalArgumentException("empty placeholder {} in '" + text + "'");
        }
        String[] path = expression.split("\\.", -1);
        int index = parameterIndex(path[0], method, text);
        Parameter parameter = method.getParameters()[index];
        List<PropertyStep> steps = new ArrayList<>();
        Class<?> type = parameter.getType();
        for (int i = 1; i < path.length; i++) {
            PropertyStep step = PropertyStep.find(type, path[i]);
            if (step == null) {
                throw new IllegalArgumentException("{" + expression + "}: " + type.getName() + " has no readable property '"
                        + path[i] + "' (a public getter, record accessor or public field)");
            }
            steps.add(step);
            type = step.type();
        }
        String problem = KeyValue.problemWith(type);
        if (problem != null) {
            throw new IllegalArgumentException("{" + expression + "} in '" + text + "': " + problem);
        }
        return KeyPart.argument(index, expression, steps);
    }

    private static int parameterIndex(String name, Method method, String text) {
        Parameter[] parameters = method.getParameters();
        if (!name.isEmpty() && name.chars().allMatch(Character::isDigit)) {
            int index = Integer.parseInt(name);
            if (index >= parameters.length) {
                throw new IllegalArgumentException("{" + name + "} in '" + text + "': the method has "
                        + parameters.length + " parameter(s)");
            }
            return index;
        }
        for (int i = 0; i < parameters.length; i++) {
            if (parameters[i].getName().equals(name)) {
                if (!parameters[i].isNamePresent()) {
                    break;
                }
                return i;
            }
        }
        boolean namesKnown = parameters.length == 0 || parameters[0].isNamePresent();
        throw new IllegalArgumentException("{" + name + "} in '" + text + "' names no parameter"
                + (namesKnown ? "" : " (parameter names are not compiled in: build with -parameters or use an index such as {0})"));
    }

    /**
     * @param arguments the call's arguments
     * @return the key
     * @throws IllegalArgumentException if an argument or property on the path is null
     */
    public String render(Object[] arguments) {
        if (parts.size() == 1 && parts.get(0).isLiteral()) {
            return text;
        }
        StringBuilder key = new StringBuilder(text.length() + 16);
        for (KeyPart part : parts) {
            part.appendTo(key, arguments);
        }
        return key.toString();
    }

    @Override
    public String toString() {
        return text;
    }
}
