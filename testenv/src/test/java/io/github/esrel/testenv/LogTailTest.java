package io.github.esrel.testenv;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogTailTest {

    @TempDir
    Path tmp;

    @Test
    void shouldReturnTheLastLinesOfABigFile() throws IOException {
        Path log = tmp.resolve("big.log");
        Files.writeString(
                log, IntStream.range(0, 100_000).mapToObj(i -> "line " + i).collect(Collectors.joining("\n")));

        assertThat(LogTail.of(log, 3)).isEqualTo("line 99997\nline 99998\nline 99999");
    }

    @Test
    void shouldReturnEverythingOfAShortFileAndNothingOfAMissingOne() throws IOException {
        Path log = Files.writeString(tmp.resolve("short.log"), "a\nb\n");

        assertThat(LogTail.of(log, 60)).isEqualTo("a\nb");
        assertThat(LogTail.of(tmp.resolve("missing.log"), 60)).isEmpty();
    }
}
