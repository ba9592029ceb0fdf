package io.github.esrel.lock;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The pure parts of the plugin's provider: grant ids, and telling a plugin that predates them. */
class PluginTreeLocksTest {

    @Test
    void shouldMakeANewGrantIdThePluginAcceptsForEachAcquisition() {
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            String id = PluginTreeLocks.newGrantId();
            assertThat(id).hasSizeBetween(16, 128).matches("[A-Za-z0-9_-]+");
            ids.add(id);
        }
        assertThat(ids).hasSize(1000);
    }

    @Test
    void shouldTellAPluginThatDoesNotKnowGrantIdsFromOtherRefusals() {
        String unknownField = "cannot lock exclusive /a in [fs]: [es/esrel._treelock.acquire] failed:"
                + " [x_content_parse_exception] [1:120] unknown field [grant_id], expected one of [path, mode, owner,"
                + " ttl, wait, bind_to_user]";
        assertThat(PluginTreeLocks.refusesGrantIds(new TreeLockException(unknownField, 400, null)))
                .isTrue();
        assertThat(PluginTreeLocks.refusesGrantIds(
                        new TreeLockException("grant_id must be 16 to 128 characters", 400, null)))
                .isFalse();
        assertThat(PluginTreeLocks.refusesGrantIds(new TreeLockException(unknownField, 503, null)))
                .isFalse();
    }
}
