package io.github.esrel.testenv;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** Every system property testenv reads, in one place (the README lists the same). */
final class TestenvProperties {

  static final String BACKEND = "esrel.testenv.backend";
  static final String ES_VERSION = "esrel.es.version";
  static final String ES_DISTRIBUTION = "esrel.es.distribution";
  static final String PLUGIN_ZIP = "esrel.plugin.zip";
  static final String WORK_DIR = "esrel.work.dir";
  static final String JAVA_HOME = "esrel.testenv.java.home";
  static final String USER = "esrel.testenv.user";
  static final String URL = "esrel.testenv.url";
  static final String USERNAME = "esrel.testenv.username";
  static final String PASSWORD = "esrel.testenv.password";
  static final String API_KEY = "esrel.testenv.api-key";

  static final String DEFAULT_ES_VERSION = "9.5.3";

  private TestenvProperties() {}

  static String backend() {
    String value = get(BACKEND).orElse("auto").toLowerCase(Locale.ROOT);
    if (!List.of("auto", "local", "docker", "external").contains(value)) {
      throw new EsClusterException(
          BACKEND + "=" + value + " is not a backend: use auto, local, docker or external");
    }
    return value;
  }

  static String esVersion() {
    return get(ES_VERSION).orElse(DEFAULT_ES_VERSION);
  }

  static Optional<Path> esDistribution() {
    return get(ES_DISTRIBUTION).map(Path::of);
  }

  static Optional<Path> pluginZip() {
    return get(PLUGIN_ZIP).map(Path::of);
  }

  static Path workDir() {
    return Path.of(get(WORK_DIR).orElse("target/esrel-testenv")).toAbsolutePath().normalize();
  }

  static Optional<Path> javaHome() {
    return get(JAVA_HOME).map(Path::of);
  }

  static String user() {
    return get(USER).orElse("esrel");
  }

  static List<String> urls() {
    return get(URL)
        .map(v -> Arrays.stream(v.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList())
        .orElse(List.of());
  }

  static Optional<String> username() {
    return get(USERNAME);
  }

  static Optional<String> password() {
    return get(PASSWORD);
  }

  static Optional<String> apiKey() {
    return get(API_KEY);
  }

  /** Blank counts as unset: Maven passes an undefined property as an empty string. */
  private static Optional<String> get(String name) {
    return Optional.ofNullable(System.getProperty(name))
        .map(String::trim)
        .filter(s -> !s.isEmpty());
  }
}
