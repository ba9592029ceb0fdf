package io.github.esrel.doc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class DocRefTest {

    @Test
    void shouldBuildTheSameReferenceEveryWay() {
        DocRef plain = DocRef.of("orders", "order-1").withRouting("tenant-7");
        DocRef built = DocRef.of(d -> d.index("orders").id("order-1").routing("tenant-7"));
        assertThat(built).isEqualTo(plain).hasSameHashCodeAs(plain);
        assertThat(plain.toString()).isEqualTo("orders/order-1?routing=tenant-7");
        assertThat(DocRef.id("1").toString()).isEqualTo("1");
    }

    @Test
    void shouldTreatAnEmptyRoutingAsNoneAsElasticsearchDoes() {
        assertThat(DocRef.of("i", "1").withRouting("")).isEqualTo(DocRef.of("i", "1"));
        assertThat(DocRef.of("i", "1").withRouting("").routing()).isNull();
        assertThat(DocRef.of("i", "1").withRouting("r").withRouting(null).routing())
                .isNull();
    }

    @Test
    void shouldRejectMissingParts() {
        assertThatThrownBy(() -> DocRef.of("i", null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("id cannot be null");
        assertThatThrownBy(() -> DocRef.of(null, "1"))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("index cannot be null");
        assertThatThrownBy(() -> DocRef.of(" ", "1")).hasMessage("index must not be blank, got [ ]");
        assertThatThrownBy(() -> DocRef.id("")).hasMessage("id must not be empty");
        assertThatThrownBy(() -> DocRef.of(d -> d.index("i"))).isInstanceOf(NullPointerException.class);
    }

    @Test
    void shouldCheckTheIndexAnApiWorksOn() {
        assertThat(DocRef.id("1").requireIn("photos").index()).isNull();
        assertThat(DocRef.of("photos", "1").requireIn("photos").id()).isEqualTo("1");
        assertThatThrownBy(() -> DocRef.of("users", "1").requireIn("photos"))
                .hasMessage("the document reference users/1 names index [users], but this works on [photos]");
        assertThatThrownBy(() -> DocRef.id("1").requireIndex()).hasMessageContaining("names no index");
    }
}
