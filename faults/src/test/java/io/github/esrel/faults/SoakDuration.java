package io.github.esrel.faults;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The length of a soak, from the system property {@value #PROPERTY}: a whole number and a unit, {@code s},
 * {@code m} or {@code h} ({@code 90s}, {@code 10m}, {@code 1h}). Strict, because a soak that silently runs
 * for the wrong time wastes the machine it runs on.
 */
final class SoakDuration {

    static final String PROPERTY = "esrel.soak";
    private static final Pattern FORMAT = Pattern.compile("(\\d{1,9})([smh])");

    private SoakDuration() {}

    /**
     * Parses {@code value}.
     *
     * @throws IllegalArgumentException if it is not a positive whole number followed by s, m or h
     */
    static Duration parse(String value) {
        Matcher m = FORMAT.matcher(value == null ? "" : value);
        if (!m.matches()) {
            throw new IllegalArgumentException(PROPERTY + " must be a whole number followed by s, m or h"
                    + " (90s, 10m, 1h), got '" + value + "'");
        }
        long amount = Long.parseLong(m.group(1));
        if (amount == 0) {
            throw new IllegalArgumentException(PROPERTY + " must be longer than 0, got '" + value + "'");
        }
        return switch (m.group(2)) {
            case "s" -> Duration.ofSeconds(amount);
            case "m" -> Duration.ofMinutes(amount);
            default -> Duration.ofHours(amount);
        };
    }
}
