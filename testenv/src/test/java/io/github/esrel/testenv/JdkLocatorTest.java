package io.github.esrel.testenv;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JdkLocatorTest {

    @TempDir
    Path tmp;

    @Test
    void shouldParseTheFeatureVersionOfAReleaseFile() {
        assertThat(JdkLocator.parseRelease(List.of("IMPLEMENTOR=\"Eclipse Adoptium\"", "JAVA_VERSION=\"21.0.2\"")))
                .hasValue(21);
        assertThat(JdkLocator.parseRelease(List.of("JAVA_VERSION=\"1.8.0_292\"")))
                .hasValue(8);
        assertThat(JdkLocator.parseRelease(List.of("JAVA_VERSION=\"25\""))).hasValue(25);
        assertThat(JdkLocator.parseRelease(List.of("JAVA_VERSION=\"22-ea\""))).hasValue(22);
        assertThat(JdkLocator.parseRelease(List.of("JAVA_VERSION=\"unknown\""))).isEmpty();
        assertThat(JdkLocator.parseRelease(List.of("OS_NAME=\"Linux\""))).isEmpty();
    }

    @Test
    void shouldRequireJava21ForElasticsearch9And17ForOlder() {
        assertThat(JdkLocator.requiredJava("9.5.3")).isEqualTo(21);
        assertThat(JdkLocator.requiredJava("10.0.0")).isEqualTo(21);
        assertThat(JdkLocator.requiredJava("8.19.21")).isEqualTo(17);
    }

    @Test
    void shouldPreferTheFirstCandidateWhenItIsRecentEnough() throws IOException {
        Path javaHome = jdk("java-home", "21.0.1");
        Path newest = jdk("newest", "25.0.1");

        assertThat(JdkLocator.choose(List.of(javaHome, newest), 21)).contains(javaHome);
    }

    @Test
    void shouldOtherwiseChooseTheNewestInstalledJdk() throws IOException {
        Path old = jdk("old", "17.0.15");
        Path jdk21 = jdk("jdk21", "21.0.4");
        Path jdk25 = jdk("jdk25", "25");
        Path notAJdk = Files.createDirectories(tmp.resolve("docs"));

        assertThat(JdkLocator.choose(List.of(old, notAJdk, jdk25, jdk21), 21)).contains(jdk25);
        assertThat(JdkLocator.choose(List.of(old, notAJdk), 21)).isEmpty();
    }

    @Test
    void shouldReadNoVersionWithoutAReleaseFile() {
        assertThat(JdkLocator.javaVersion(tmp)).isEqualTo(OptionalInt.empty());
    }

    private Path jdk(String name, String version) throws IOException {
        Path home = Files.createDirectories(tmp.resolve(name));
        Files.writeString(home.resolve("release"), "JAVA_VERSION=\"" + version + "\"\n");
        return home;
    }
}
