package io.github.esrel.internal;

import java.time.Duration;
import java.util.Objects;

/**
 * The argument checks of esrel's builders, so that every builder words a bad value the same way:
 * {@code "<name> must be between 1 and 10000, got 0"}.
 */
public final class Checks {

    private Checks() {}

    /**
     * A whole number within bounds.
     *
     * @param value the value given
     * @param min the smallest allowed
     * @param max the largest allowed
     * @param name the option's name, for the message
     * @return {@code value}
     * @throws IllegalArgumentException if out of bounds
     */
    public static int between(int value, int min, int max, String name) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " must be between " + min + " and " + max + ", got " + value);
        }
        return value;
    }

    /**
     * A whole number of at least 1.
     *
     * @param value the value given
     * @param name the option's name, for the message
     * @return {@code value}
     * @throws IllegalArgumentException if zero or negative
     */
    public static int positive(int value, String name) {
        if (value < 1) {
            throw new IllegalArgumentException(name + " must be positive, got " + value);
        }
        return value;
    }

    /**
     * A whole number of at least 0.
     *
     * @param value the value given
     * @param name the option's name, for the message
     * @return {@code value}
     * @throws IllegalArgumentException if negative
     */
    public static int notNegative(int value, String name) {
        if (value < 0) {
            throw new IllegalArgumentException(name + " must not be negative, got " + value);
        }
        return value;
    }

    /**
     * A duration longer than zero.
     *
     * @param value the value given
     * @param name the option's name, for the messages
     * @return {@code value}
     * @throws NullPointerException if {@code value} is {@code null}
     * @throws IllegalArgumentException if zero or negative
     */
    public static Duration positive(Duration value, String name) {
        Objects.requireNonNull(value, name + " cannot be null");
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, got " + value);
        }
        return value;
    }

    /**
     * A duration of zero or more.
     *
     * @param value the value given
     * @param name the option's name, for the messages
     * @return {@code value}
     * @throws NullPointerException if {@code value} is {@code null}
     * @throws IllegalArgumentException if negative
     */
    public static Duration notNegative(Duration value, String name) {
        Objects.requireNonNull(value, name + " cannot be null");
        if (value.isNegative()) {
            throw new IllegalArgumentException(name + " must not be negative, got " + value);
        }
        return value;
    }

    /**
     * A document or job id given to an operation.
     *
     * @param id the id
     * @return {@code id}
     * @throws NullPointerException if {@code id} is {@code null}
     * @throws IllegalArgumentException if it is empty
     */
    public static String id(String id) {
        Objects.requireNonNull(id, "id cannot be null");
        if (id.isEmpty()) {
            throw new IllegalArgumentException("id cannot be empty");
        }
        return id;
    }
}
