package io.github.esrel.plugin.lock.action;

import static io.github.esrel.plugin.xcontent.Tokens.describe;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import org.elasticsearch.core.TimeValue;
import org.elasticsearch.xcontent.XContentParseException;
import org.elasticsearch.xcontent.XContentParser;
import org.elasticsearch.xcontent.XContentParser.Token;

/**
 * Strict reading of the flat JSON bodies of the tree lock endpoints: an object whose fields are strings,
 * integers or booleans, nothing else. Wrong types, unknown fields and trailing content are {@code x_content_parse_exception}s
 * (400) pointing at the offending token; nothing is coerced ({@code "token": "17"} is refused), so that type
 * mistakes surface in the client rather than as surprising locks.
 */
final class TreeLockBodyParser {

    /** The JSON type a field must have. */
    enum Type {
        STRING,
        INTEGER,
        BOOLEAN
    }

    private TreeLockBodyParser() {}

    /**
     * Reads the body into field → value ({@code String}, {@code Long} or {@code Boolean}); absent fields are absent. An
     * explicit {@code null} counts as absent.
     *
     * @param fields  the accepted fields and their types, in the order to name them in messages
     * @param example a valid body, quoted in the message for a body that is not an object
     */
    static Map<String, Object> parse(XContentParser parser, Map<String, Type> fields, String example)
            throws IOException {
        Token token = parser.currentToken() == null ? parser.nextToken() : parser.currentToken();
        if (token != Token.START_OBJECT) {
            throw new XContentParseException(
                    parser.getTokenLocation(),
                    "request body must be a JSON object like " + example + ", got " + describe(token));
        }
        Map<String, Object> values = new HashMap<>();
        while ((token = parser.nextToken()) != Token.END_OBJECT) {
            String field = parser.currentName();
            token = parser.nextToken();
            Type type = fields.get(field);
            if (type == null) {
                throw new XContentParseException(
                        parser.getTokenLocation(), "unknown field [" + field + "], expected one of " + fields.keySet());
            }
            if (token == Token.VALUE_NULL) {
                continue;
            }
            values.put(
                    field,
                    switch (type) {
                        case STRING -> string(parser, token, field);
                        case INTEGER -> integer(parser, token, field);
                        case BOOLEAN -> bool(parser, token, field);
                    });
        }
        Token after = parser.nextToken();
        if (after != null) {
            throw new XContentParseException(
                    parser.getTokenLocation(), "unexpected " + describe(after) + " after the end of the request body");
        }
        return values;
    }

    private static String string(XContentParser parser, Token token, String field) throws IOException {
        if (token != Token.VALUE_STRING) {
            throw new XContentParseException(
                    parser.getTokenLocation(), "[" + field + "] must be a string, got " + describe(token));
        }
        return parser.text();
    }

    private static Boolean bool(XContentParser parser, Token token, String field) throws IOException {
        if (token != Token.VALUE_BOOLEAN) {
            throw new XContentParseException(
                    parser.getTokenLocation(), "[" + field + "] must be true or false, got " + describe(token));
        }
        return parser.booleanValue();
    }

    private static Long integer(XContentParser parser, Token token, String field) throws IOException {
        if (token != Token.VALUE_NUMBER) {
            throw new XContentParseException(
                    parser.getTokenLocation(), "[" + field + "] must be an integer, got " + describe(token));
        }
        XContentParser.NumberType type = parser.numberType();
        if (type == XContentParser.NumberType.INT || type == XContentParser.NumberType.LONG) {
            return parser.longValue();
        }
        if (type == XContentParser.NumberType.BIG_INTEGER) {
            throw new IllegalArgumentException("[" + field + "] is out of range: " + parser.text());
        }
        throw new XContentParseException(
                parser.getTokenLocation(), "[" + field + "] must be an integer, got [" + parser.text() + "]");
    }

    /**
     * A duration such as {@code 30s}, {@code 500ms}, {@code 2m} (Elasticsearch time units: {@code d h m s ms
     * micros nanos}). A number without a unit, a negative or fractional value is refused.
     *
     * @throws IllegalArgumentException naming the field, the value and the expected form
     */
    static TimeValue duration(String field, String value) {
        String problem = "[" + field + "] must be a duration with a unit like \"30s\", \"500ms\" or \"2m\", got ["
                + printable(value) + "]";
        if (value.isEmpty() || value.length() > 64 || value.trim().startsWith("-")) {
            throw new IllegalArgumentException(
                    value.trim().startsWith("-")
                            ? "[" + field + "] must not be negative, got [" + printable(value) + "]"
                            : problem);
        }
        TimeValue parsed;
        try {
            parsed = TimeValue.parseTimeValue(value, null, field);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(problem, e);
        }
        if (parsed == null || parsed.duration() < 0) {
            throw new IllegalArgumentException("[" + field + "] must not be negative, got [" + printable(value) + "]");
        }
        return parsed;
    }

    /** {@code s} cut to 64 characters, with characters that cannot appear in a message replaced. */
    static String printable(String s) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < s.length() && i < 64; i++) {
            char c = s.charAt(i);
            out.append(Character.isSurrogate(c) || Character.isISOControl(c) ? '\ufffd' : c);
        }
        return s.length() > 64 ? out + "..." : out.toString();
    }
}
