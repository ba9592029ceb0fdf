package io.github.esrel.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.esrel.doc.DocRef;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The values of the duplicate-id report: copies, delete requests, progress. */
class DuplicateIdTest {

    @Test
    void shouldDescribeEachCopyAndTheRequestThatDeletesOnlyIt() {
        DuplicateId d = new DuplicateId(
                "orders",
                "a b/1",
                List.of(
                        new DuplicateId.Copy(DocRef.of("orders", "a b/1"), 0, 3, 1),
                        new DuplicateId.Copy(DocRef.of("orders", "a b/1").withRouting("tenant 7&x"), 4, 9, 2)));
        assertThat(d.routings()).containsExactly(null, "tenant 7&x");
        assertThat(d.shards()).containsExactly(0, 4);
        assertThat(d.copyWithRouting(null).shard()).isZero();
        assertThat(d.copyWithRouting("").shard())
                .as("an empty routing value is none")
                .isZero();
        assertThat(d.copyWithRouting("tenant 7&x").seqNo()).isEqualTo(9);
        assertThat(d.copyWithRouting("other")).isNull();
        assertThat(d.copies().get(0).deleteRequest())
                .isEqualTo("DELETE /orders/_doc/a%20b%2F1?if_seq_no=3&if_primary_term=1");
        assertThat(d.copies().get(1).deleteRequest())
                .isEqualTo("DELETE /orders/_doc/a%20b%2F1?routing=tenant%207%26x&if_seq_no=9&if_primary_term=2");
        assertThat(d.copies().get(1).routing()).isEqualTo("tenant 7&x");
    }

    @Test
    void shouldKeepItsValuesImmutableAndChecked() {
        List<DuplicateId.Copy> copies = new ArrayList<>(List.of(new DuplicateId.Copy(DocRef.of("i", "1"), 0, 0, 1)));
        DuplicateId d = new DuplicateId("i", "1", copies);
        copies.clear();
        assertThat(d.copies()).hasSize(1);
        assertThatThrownBy(() -> d.copies().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> new DuplicateId.Copy(DocRef.id("1"), 0, 0, 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new DuplicateId.Copy(DocRef.of("i", "1"), -1, 0, 1))
                .isInstanceOf(IllegalArgumentException.class);
        DuplicateIdReport r = new DuplicateIdReport("i", 10, 0, 0, List.of(), false, 1, 0, Duration.ofSeconds(1));
        assertThat(r.clean()).isTrue();
        assertThat(r.toString()).contains("documents=10").contains("duplicatedIds=0");
    }

    @Test
    void shouldDrawAProgressBar() {
        ScanProgress p = new ScanProgress(
                "i", ScanProgress.Phase.READ, 4500, 10_000, Duration.ofSeconds(1), 4500, Duration.ofSeconds(2));
        assertThat(p.fraction()).isEqualTo(0.45);
        assertThat(p.bar(20)).isEqualTo("READ [#########...........]  45%  4500/10000  4,500/s  ETA 2s");
        assertThat(new ScanProgress("i", ScanProgress.Phase.COUNT, 0, 0, Duration.ZERO, 0, null).fraction())
                .isEqualTo(1.0);
    }

    @Test
    void shouldValidateTheBuilder() {
        assertThatThrownBy(() -> DuplicateIdScanner.of(b -> b))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("client");
        assertThatThrownBy(() -> DuplicateIdScanner.of(b -> b.maxIdsInMemory(99)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxIdsInMemory");
        assertThatThrownBy(() -> DuplicateIdScanner.of(b -> b.maxReported(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DuplicateIdScanner.of(b -> b.pageSize(10_001)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DuplicateIdScanner.of(b -> b.slices(0))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DuplicateIdScanner.of(b -> b.keepAlive(Duration.ZERO)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
