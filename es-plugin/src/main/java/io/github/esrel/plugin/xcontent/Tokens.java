package io.github.esrel.plugin.xcontent;

import org.elasticsearch.xcontent.XContentParser.Token;
import org.jspecify.annotations.Nullable;

/**
 * Words for the tokens of a request body, for the parse errors of every esrel endpoint. Public only so that the
 * plugin's packages can share it; the plugin has no Java API.
 */
public final class Tokens {

    private Tokens() {}

    /**
     * What a body holds where a value was expected, as a parse error names it ("got a string").
     *
     * @param token the token found, or null at the end of the body
     * @return {@code an object}, {@code an array}, {@code a string}, {@code a number}, {@code a boolean},
     *     {@code null}, or {@code an empty body} for no token
     */
    public static String describe(@Nullable Token token) {
        if (token == null) {
            return "an empty body";
        }
        return switch (token) {
            case START_OBJECT -> "an object";
            case START_ARRAY -> "an array";
            case VALUE_STRING -> "a string";
            case VALUE_NUMBER -> "a number";
            case VALUE_BOOLEAN -> "a boolean";
            case VALUE_NULL -> "null";
            default -> token.toString();
        };
    }
}
