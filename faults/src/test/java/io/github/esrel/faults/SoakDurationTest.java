package io.github.esrel.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SoakDurationTest {

    @Test
    void shouldParseSecondsMinutesAndHours() {
        assertThat(SoakDuration.parse("90s")).isEqualTo(Duration.ofSeconds(90));
        assertThat(SoakDuration.parse("10m")).isEqualTo(Duration.ofMinutes(10));
        assertThat(SoakDuration.parse("1h")).isEqualTo(Duration.ofHours(1));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {"", "10", "m", "10 m", " 10m", "10M", "1.5m", "-1m", "10min", "1h30m", "PT10M", "9999999999s"})
    void shouldRejectAnythingElseNamingTheProperty(String value) {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> SoakDuration.parse(value))
                .withMessageContaining("esrel.soak")
                .withMessageContaining("'" + value + "'");
    }

    @Test
    void shouldRejectZeroAndNull() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> SoakDuration.parse("0s"))
                .withMessageContaining("longer than 0");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> SoakDuration.parse(null))
                .withMessageContaining("got 'null'");
    }
}
