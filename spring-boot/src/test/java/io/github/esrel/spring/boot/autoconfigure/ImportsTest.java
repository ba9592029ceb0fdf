package io.github.esrel.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.context.annotation.ImportCandidates;

/** Boot finds esrel's auto-configurations where it looks for them. */
class ImportsTest {

    @Test
    void shouldListEveryEsrelAutoConfigurationInAutoConfigurationImports() {
        List<String> candidates = new ArrayList<>();
        ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader())
                .forEach(candidates::add);
        assertThat(candidates)
                .contains(
                        EsrelAutoConfiguration.class.getName(),
                        EsrelMetricsAutoConfiguration.class.getName(),
                        EsrelSpringDataAutoConfiguration.class.getName(),
                        EsrelHealthAutoConfiguration.class.getName(),
                        EsrelShedLockAutoConfiguration.class.getName(),
                        EsrelIntegrationAutoConfiguration.class.getName());
    }
}
