package io.github.esrel;

import co.elastic.clients.json.JsonpMapper;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;
import jakarta.json.spi.JsonProvider;
import java.io.IOException;
import java.lang.reflect.Type;
import java.math.BigDecimal;

/**
 * Mappers configured as applications configure theirs, for tests that esrel's documents keep the application's
 * settings and esrel's own documents do not take them on.
 */
public final class ApplicationMappers {

    private ApplicationMappers() {}

    /** An amount with its currency, written by {@link #moneyAsText()} as one string, "12.50 EUR". */
    public record Money(BigDecimal amount, String currency) {
        public static Money of(String amount, String currency) {
            return new Money(new BigDecimal(amount), currency);
        }
    }

    /** A module of the application's: {@link Money} as one string. */
    public static SimpleModule moneyAsText() {
        SimpleModule m = new SimpleModule("money");
        m.addSerializer(new StdSerializer<>(Money.class) {
            @Override
            public void serialize(Money v, JsonGenerator g, SerializerProvider p) throws IOException {
                g.writeString(v.amount().toPlainString() + " " + v.currency());
            }
        });
        m.addDeserializer(Money.class, new StdDeserializer<>(Money.class) {
            @Override
            public Money deserialize(JsonParser p, DeserializationContext c) throws IOException {
                String[] parts = p.getValueAsString().split(" ");
                return new Money(new BigDecimal(parts[0]), parts[1]);
            }
        });
        return m;
    }

    /**
     * snake_case property names, {@link Money} as text, and every {@code long} written as a string (as applications
     * with JavaScript clients do): a mapper that would break documents of esrel's own (lock documents, checkpoints)
     * if esrel wrote them with it.
     */
    public static ObjectMapper snakeCase() {
        SimpleModule longsAsText = new SimpleModule("longs-as-text")
                .addSerializer(Long.class, ToStringSerializer.instance)
                .addSerializer(Long.TYPE, ToStringSerializer.instance);
        return new ObjectMapper()
                .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
                .registerModule(moneyAsText())
                .registerModule(longsAsText);
    }

    /**
     * A JSON-P mapper that is not a {@code JacksonJsonpMapper}, as Jackson 3's and JSON-B's are not: esrel maps
     * documents with it through their JSON text.
     */
    public record Foreign(JsonpMapper delegate) implements JsonpMapper {
        @Override
        public JsonProvider jsonProvider() {
            return delegate.jsonProvider();
        }

        @Override
        public <T> T deserialize(jakarta.json.stream.JsonParser parser, Type type) {
            return delegate.deserialize(parser, type);
        }

        @Override
        public <T> T deserialize(
                jakarta.json.stream.JsonParser parser, Type type, jakarta.json.stream.JsonParser.Event event) {
            return delegate.deserialize(parser, type, event);
        }

        @Override
        public <T> void serialize(T value, jakarta.json.stream.JsonGenerator generator) {
            delegate.serialize(value, generator);
        }

        @Override
        public boolean ignoreUnknownFields() {
            return delegate.ignoreUnknownFields();
        }

        @Override
        public <T> T attribute(String name) {
            return delegate.attribute(name);
        }

        @Override
        public <T> T attribute(String name, T defaultValue) {
            return delegate.attribute(name, defaultValue);
        }

        @Override
        public <T> JsonpMapper withAttribute(String name, T value) {
            return new Foreign(delegate.withAttribute(name, value));
        }
    }
}
