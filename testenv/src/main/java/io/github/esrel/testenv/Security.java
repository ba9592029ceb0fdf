package io.github.esrel.testenv;

import static java.util.Objects.requireNonNull;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Elasticsearch security for a cluster testenv starts: security on, users and roles in the file
 * realm, and TLS on HTTP with a certificate authority testenv generates. Pass it to {@link
 * EsCluster.Builder#security(Security)}.
 *
 * <pre>{@code
 * EsCluster.builder().security(Security.of(s -> s
 *     .role("fs_writer", "{\"indices\": [{\"names\": [\"fs\"], \"privileges\": [\"write\"]}]}")
 *     .user("writer", "writer-password", "fs_writer")))
 * }</pre>
 *
 * <p>Besides the users given here, the cluster has the superuser {@value #ADMIN}, which {@link
 * EsCluster#client()} and testenv's own requests authenticate as; {@link EsCluster#clientAs}
 * returns a client for any other user. Roles are role descriptors in the JSON of Elasticsearch's
 * role API ({@code cluster}, {@code indices}, ...), plus the built-in roles such as {@code
 * superuser}. The file realm is the only realm: the test distribution cannot create the {@code
 * .security} index the native realm needs. Immutable; equal configurations are equal.
 */
public final class Security {

    /** The superuser testenv adds to every secured cluster. */
    public static final String ADMIN = "esrel-admin";

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.\\-@]*");

    private final Map<String, String> roles;
    private final Map<String, User> users;
    private final boolean tls;

    private Security(Builder b) {
        this.roles = Collections.unmodifiableMap(new LinkedHashMap<>(b.roles));
        this.users = Collections.unmodifiableMap(new LinkedHashMap<>(b.users));
        this.tls = b.tls;
    }

    /**
     * Builds a configuration.
     *
     * @param fn sets the builder's values
     * @return the configuration
     * @throws IllegalArgumentException if a user names a role that is neither defined nor built in
     */
    public static Security of(Function<Builder, Builder> fn) {
        return fn.apply(new Builder()).build();
    }

    /** The roles defined here, by name: their descriptors as JSON. */
    Map<String, String> roles() {
        return roles;
    }

    /** The users defined here, by name. */
    Map<String, User> users() {
        return users;
    }

    /**
     * Whether HTTP runs over TLS with a certificate of testenv's own certificate authority.
     *
     * @return {@code true} unless {@link Builder#tls(boolean)} turned it off
     */
    public boolean tls() {
        return tls;
    }

    /**
     * The password of a user defined here.
     *
     * @param user the user's name
     * @return the password given to {@link Builder#user}
     * @throws IllegalArgumentException if no such user is defined
     */
    public String password(String user) {
        User u = users.get(user);
        if (u == null) {
            throw new IllegalArgumentException(
                    "no user [" + user + "] in this cluster's security; defined: " + users.keySet());
        }
        return u.password();
    }

    /** A user of the file realm. */
    record User(String password, List<String> roles) {}

    @Override
    public boolean equals(Object o) {
        return o instanceof Security other
                && roles.equals(other.roles)
                && users.equals(other.users)
                && tls == other.tls;
    }

    @Override
    public int hashCode() {
        return Objects.hash(roles, users, tls);
    }

    /** Names the users, their roles and whether TLS is on; never the passwords. */
    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("Security{tls=").append(tls).append(", users={");
        users.forEach((name, u) -> s.append(name).append('=').append(u.roles()).append(' '));
        return s.append("}, roles=").append(roles.keySet()).append('}').toString();
    }

    /** Configures a {@link Security}; setters validate at once. */
    public static final class Builder {

        private static final List<String> BUILT_IN_ROLES =
                List.of("superuser", "viewer", "editor", "monitoring_user", "kibana_admin");

        private final Map<String, String> roles = new LinkedHashMap<>();
        private final Map<String, User> users = new LinkedHashMap<>();
        private boolean tls = true;

        private Builder() {}

        /**
         * Defines a role.
         *
         * @param name the role's name
         * @param descriptorJson its descriptor, as the role API takes it, e.g. {@code {"indices":
         *     [{"names": ["fs"], "privileges": ["write"]}]}}
         * @return this builder
         * @throws IllegalArgumentException if the name is not a valid role name or the descriptor is
         *     not a JSON object
         */
        public Builder role(String name, String descriptorJson) {
            requireNonNull(descriptorJson, "descriptor of role '" + name + "' cannot be null");
            checkName("role", name);
            String trimmed = descriptorJson.strip();
            if (!trimmed.startsWith("{") || !trimmed.endsWith("}")) {
                throw new IllegalArgumentException(
                        "the descriptor of role '" + name + "' must be a JSON object, got " + descriptorJson);
            }
            roles.put(name, trimmed);
            return this;
        }

        /**
         * Defines a user of the file realm.
         *
         * @param name the user's name
         * @param password the password, at least 6 characters (Elasticsearch's minimum)
         * @param roles the user's roles: defined with {@link #role} or built in ({@code superuser},
         *     {@code viewer}, {@code editor}, ...); none makes a user that can only authenticate
         * @return this builder
         * @throws IllegalArgumentException if the name is invalid or taken by {@value #ADMIN}, or the
         *     password is shorter than 6 characters
         */
        public Builder user(String name, String password, String... roles) {
            requireNonNull(password, "password of user '" + name + "' cannot be null");
            requireNonNull(roles, "roles cannot be null");
            checkName("user", name);
            if (name.equals(ADMIN)) {
                throw new IllegalArgumentException(ADMIN + " is testenv's own superuser; choose another name");
            }
            if (password.length() < 6) {
                throw new IllegalArgumentException(
                        "the password of user '" + name + "' must have at least 6 characters");
            }
            users.put(name, new User(password, List.copyOf(Arrays.asList(roles))));
            return this;
        }

        /**
         * Whether HTTP runs over TLS; default {@code true}. The certificate authority and the nodes'
         * certificate are generated once per work directory with the distribution's {@code
         * elasticsearch-certutil}; {@link EsCluster#caCertificate()} names the CA's PEM file.
         *
         * @param tls {@code false} for plain HTTP with security on
         * @return this builder
         */
        public Builder tls(boolean tls) {
            this.tls = tls;
            return this;
        }

        private Security build() {
            for (Map.Entry<String, User> user : users.entrySet()) {
                for (String role : user.getValue().roles()) {
                    if (!roles.containsKey(role) && !BUILT_IN_ROLES.contains(role)) {
                        throw new IllegalArgumentException("user '"
                                + user.getKey()
                                + "' has role '"
                                + role
                                + "', which is neither defined (role(...)) nor built in "
                                + BUILT_IN_ROLES);
                    }
                }
            }
            return new Security(this);
        }

        private static void checkName(String what, String name) {
            requireNonNull(name, what + " name cannot be null");
            if (!NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("'" + name + "' is not a valid " + what + " name");
            }
        }
    }
}
