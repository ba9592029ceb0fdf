package io.github.esrel.plugin.lock.grant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.common.util.concurrent.ThreadContext;
import org.junit.jupiter.api.Test;

/**
 * Reading the authenticated user from the thread context. x-pack's classes are not on the plugin's class path,
 * so stand-ins with the same public methods play {@code Authentication}, {@code Subject}, {@code User} and
 * {@code RealmRef}; {@code BoundGrantsIT} reads the real ones on secured nodes.
 */
class AuthenticatedUserTest {

    public static final class FakeAuthentication {
        private final FakeSubject subject;

        FakeAuthentication(FakeSubject subject) {
            this.subject = subject;
        }

        public FakeSubject getEffectiveSubject() {
            return subject;
        }
    }

    public record FakeSubject(FakeUser user, FakeRealm realm, Map<String, Object> metadata) {
        public FakeUser getUser() {
            return user;
        }

        public FakeRealm getRealm() {
            return realm;
        }

        public Map<String, Object> getMetadata() {
            return metadata;
        }
    }

    public record FakeUser(String principal) {}

    public record FakeRealm(String name) {
        public String getName() {
            return name;
        }
    }

    private final ThreadContext threadContext = new ThreadContext(Settings.EMPTY);

    @Test
    void shouldFindNobodyWithoutSecurity() {
        assertThat(AuthenticatedUser.current(threadContext)).isNull();
    }

    @Test
    void shouldReadTheEffectiveUserAndItsRealm() {
        threadContext.putTransient(
                AuthenticatedUser.AUTHENTICATION_KEY,
                new FakeAuthentication(new FakeSubject(new FakeUser("alice"), new FakeRealm("file1"), Map.of())));
        assertThat(AuthenticatedUser.current(threadContext)).isEqualTo(new AuthenticatedUser("alice", "file1"));
    }

    @Test
    void shouldTellApiKeysOfOneOwnerApart() {
        FakeSubject key = new FakeSubject(
                new FakeUser("alice"), new FakeRealm("_es_api_key"), Map.of("_security_api_key_id", "k1"));
        assertThat(AuthenticatedUser.of(new FakeAuthentication(key)))
                .isEqualTo(new AuthenticatedUser("alice", "_es_api_key/k1"));
    }

    @Test
    void shouldFailLoudlyWhenTheAuthenticationHasAnotherShape() {
        assertThatThrownBy(() -> AuthenticatedUser.of("not an authentication"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cannot tell who the authenticated user is")
                .hasMessageContaining("java.lang.String");
        FakeAuthentication noRealm = new FakeAuthentication(new FakeSubject(new FakeUser("alice"), null, Map.of()));
        assertThatThrownBy(() -> AuthenticatedUser.of(noRealm)).isInstanceOf(IllegalStateException.class);
    }
}
