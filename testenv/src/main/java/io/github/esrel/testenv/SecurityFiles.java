package io.github.esrel.testenv;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * The file realm of a secured node: {@code users} (password hashes), {@code users_roles} and
 * {@code roles.yml}, written into its config directory, and the settings that turn security on.
 */
final class SecurityFiles {

    /** Elasticsearch's PBKDF2 hasher: HMAC-SHA512, a 32-byte salt, a 256-bit key. */
    private static final int PBKDF2_ITERATIONS = 10_000;

    private static final SecureRandom RANDOM = new SecureRandom();

    private SecurityFiles() {}

    /** A random password for testenv's own superuser. */
    static String newAdminPassword() {
        byte[] bytes = new byte[18];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** Writes the realm's three files, {@code adminPassword} for {@value Security#ADMIN}. */
    static void write(Path configDir, Security security, String adminPassword) throws IOException {
        Map<String, Security.User> users = new LinkedHashMap<>();
        users.put(Security.ADMIN, new Security.User(adminPassword, List.of("superuser")));
        users.putAll(security.users());

        StringBuilder usersFile = new StringBuilder();
        Map<String, List<String>> usersByRole = new LinkedHashMap<>();
        users.forEach((name, user) -> {
            usersFile.append(name).append(':').append(pbkdf2(user.password())).append('\n');
            for (String role : user.roles()) {
                usersByRole.computeIfAbsent(role, r -> new ArrayList<>()).add(name);
            }
        });
        StringBuilder usersRoles = new StringBuilder();
        usersByRole.forEach((role, names) -> usersRoles
                .append(role)
                .append(':')
                .append(String.join(",", names))
                .append('\n'));
        // JSON is YAML: each descriptor goes in as the role API takes it.
        StringBuilder rolesYml = new StringBuilder("# Written by esrel testenv.\n");
        security.roles()
                .forEach((name, json) -> rolesYml.append(ElasticsearchYml.quote(name))
                        .append(": ")
                        .append(json)
                        .append('\n'));

        Files.writeString(configDir.resolve("users"), usersFile, StandardCharsets.UTF_8);
        Files.writeString(configDir.resolve("users_roles"), usersRoles, StandardCharsets.UTF_8);
        Files.writeString(configDir.resolve("roles.yml"), rolesYml, StandardCharsets.UTF_8);
    }

    /** The settings of a secured node whose certificates (if any) are in {@code certs/} of its config. */
    static Map<String, String> settings(Security security) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("xpack.security.enabled", "true");
        // The file realm only: the native realm needs the .security index, which the test distribution
        // cannot create (it lacks analysis-common), and would log failures for every unknown user.
        settings.put("xpack.security.authc.realms.file.file1.order", "0");
        if (security.tls()) {
            settings.put("xpack.security.http.ssl.enabled", "true");
            settings.put("xpack.security.http.ssl.key", "certs/" + Tls.NODE_KEY);
            settings.put("xpack.security.http.ssl.certificate", "certs/" + Tls.NODE_CERT);
            settings.put("xpack.security.http.ssl.certificate_authorities", "certs/" + Tls.CA_CERT);
        }
        return settings;
    }

    /** The Basic authorization header of a user. */
    static String basicAuth(String user, String password) {
        String credentials = user + ":" + password;
        return "Basic " + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8));
    }

    /** A hash the file realm reads: {@code {PBKDF2}<iterations>$<salt>$<key>}, Base64. */
    static String pbkdf2(String password) {
        byte[] salt = new byte[32];
        RANDOM.nextBytes(salt);
        try {
            byte[] key = SecretKeyFactory.getInstance("PBKDF2WithHmacSHA512")
                    .generateSecret(new PBEKeySpec(password.toCharArray(), salt, PBKDF2_ITERATIONS, 256))
                    .getEncoded();
            Base64.Encoder base64 = Base64.getEncoder();
            return "{PBKDF2}" + PBKDF2_ITERATIONS + "$" + base64.encodeToString(salt) + "$"
                    + base64.encodeToString(key);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JVM has no PBKDF2WithHmacSHA512", e);
        }
    }
}
