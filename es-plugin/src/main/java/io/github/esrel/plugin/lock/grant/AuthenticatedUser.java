package io.github.esrel.plugin.lock.grant;

import java.util.Map;
import java.util.Objects;
import org.elasticsearch.common.util.concurrent.ThreadContext;
import org.jspecify.annotations.Nullable;

/**
 * The user Elasticsearch security authenticated for the current request, as far as a grant bound to a user
 * ({@code "bind_to_user": true}) needs it: the user's name and the realm that vouched for it. Two users match
 * only if both agree, so {@code alice} of the file realm is not {@code alice} of an LDAP realm, and each API key
 * is a user of its own (its realm names the key's id), not its owner.
 *
 * <h2>Where it comes from, and why this way</h2>
 * The server offers plugins no API for the authenticated user: it lives in x-pack's {@code Authentication},
 * which security keeps in the request's thread context under {@value #AUTHENTICATION_KEY} (as a transient
 * object on the node that authenticated the request, and as an encoded header for other nodes). The
 * alternatives were worse: decoding the header means copying x-pack's wire format, version by version;
 * compiling against x-pack-core means extending it as a plugin and pinning its internal API; a
 * {@code _security/_authenticate} call from inside the action needs x-pack's request class all the same. So
 * {@link #current} reads the transient and asks it, by reflection, what {@code GET _security/_authenticate}
 * shows: {@code getEffectiveSubject()} (the run-as user when there is one), its {@code getUser().principal()},
 * {@code getRealm().getName()} and, for an API key, {@code getMetadata()}'s {@code _security_api_key_id}. These
 * are public methods of packages x-pack-core exports, the same on 8.19 and 9.x; if a release changes them,
 * binding fails loudly (500 naming this class) rather than silently binding nobody. Reading the context is all
 * it does: who may act is still decided by Elasticsearch security.
 *
 * @param name  the authenticated (effective) user's principal
 * @param realm the realm that authenticated it; {@code _es_api_key/<id>} for an API key
 */
public record AuthenticatedUser(String name, String realm) {

    /** Where Elasticsearch security keeps the request's authentication in the thread context. */
    static final String AUTHENTICATION_KEY = "_xpack_security_authentication";

    private static final String API_KEY_REALM = "_es_api_key";
    private static final String API_KEY_ID = "_security_api_key_id";

    /**
     * Checks that both components are present.
     *
     * @throws NullPointerException if {@code name} or {@code realm} is null
     */
    public AuthenticatedUser {
        Objects.requireNonNull(name, "name cannot be null");
        Objects.requireNonNull(realm, "realm cannot be null");
    }

    /**
     * The user security authenticated for the request whose context is current.
     *
     * @param threadContext the node's thread context, in the caller's context (not stashed)
     * @return the user, or null if there is none: security is off, or the context is not a request's
     * @throws IllegalStateException if the authentication is there but does not have the expected shape
     */
    public static @Nullable AuthenticatedUser current(ThreadContext threadContext) {
        Object authentication = threadContext.getTransient(AUTHENTICATION_KEY);
        return authentication == null ? null : of(authentication);
    }

    /** Reads x-pack's {@code Authentication} (or anything with the same methods). */
    static AuthenticatedUser of(Object authentication) {
        try {
            Object subject = call(authentication, "getEffectiveSubject");
            String name = (String) call(call(subject, "getUser"), "principal");
            String realm = (String) call(call(subject, "getRealm"), "getName");
            if (API_KEY_REALM.equals(realm)
                    && call(subject, "getMetadata") instanceof Map<?, ?> metadata
                    && metadata.get(API_KEY_ID) != null) {
                realm = realm + "/" + metadata.get(API_KEY_ID);
            }
            return new AuthenticatedUser(name, realm);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException(
                    "cannot tell who the authenticated user is: Elasticsearch security's authentication ["
                            + authentication.getClass().getName() + "] does not have the shape "
                            + AuthenticatedUser.class.getSimpleName()
                            + " expects; binding grants to users does not work on this version",
                    e);
        }
    }

    private static Object call(Object target, String method) throws ReflectiveOperationException {
        return Objects.requireNonNull(target.getClass().getMethod(method).invoke(target), method + "() returned null");
    }

    @Override
    public String toString() {
        return "[" + name + "] of realm [" + realm + "]";
    }
}
