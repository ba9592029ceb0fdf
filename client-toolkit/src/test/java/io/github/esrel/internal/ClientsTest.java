package io.github.esrel.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import co.elastic.clients.transport.Version;
import org.junit.jupiter.api.Test;

class ClientsTest {

    private static final int MAJOR = ClientApi.CLIENT_MAJOR;
    private static final int MINOR = ClientApi.MIN_CLIENT[1];

    @Test
    void shouldAcceptTheOldestSupportedClientAndNewerOnesOfTheLine() {
        assertThat(Clients.clientVersionProblem(new Version(MAJOR, MINOR, 0, false)))
                .isNull();
        assertThat(Clients.clientVersionProblem(new Version(MAJOR, MINOR + 7, 3, false)))
                .isNull();
        assertThat(Clients.clientVersionProblem(null)).isNull();
    }

    @Test
    void shouldRefuseAnOlderClientNamingTheMinimumAndBootsProperty() {
        assumeTrue(MINOR > 0, "the first minor of its major is the minimum of this line");
        String problem = Clients.clientVersionProblem(new Version(MAJOR, MINOR - 1, 4, false));
        assertThat(problem)
                .contains(ClientApi.ARTIFACT)
                .contains("needs elasticsearch-java " + MAJOR + "." + MINOR)
                .contains(MAJOR + "." + (MINOR - 1) + ".4 is on the class path")
                .contains("elasticsearch-client.version");
    }

    @Test
    void shouldRefuseTheOtherLineNamingItsArtifact() {
        int other = MAJOR == 9 ? 8 : 9;
        String problem = Clients.clientVersionProblem(new Version(other, 18, 8, false));
        assertThat(problem)
                .contains("for elasticsearch-java " + other + ".x use io.github.esrel:" + ClientApi.OTHER_ARTIFACT);
    }

    /** With -Desrel.test.client=V (the client-under-test profile), the tests really run on V. */
    @Test
    void shouldRunOnTheClientThisBuildIsTestedWith() {
        String wanted = System.getProperty("esrel.test.client");
        if (wanted != null && !wanted.isBlank()) {
            assertThat(Version.VERSION).hasToString(wanted);
        }
        assertThat(Clients.clientVersionProblem(Version.VERSION)).isNull();
    }
}
