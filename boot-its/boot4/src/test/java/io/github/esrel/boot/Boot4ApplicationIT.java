package io.github.esrel.boot;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.json.jackson.Jackson3JsonpMapper;
import co.elastic.clients.transport.rest5_client.Rest5ClientTransport;
import io.github.esrel.occ.Outcome;
import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.health.actuate.endpoint.HealthDescriptor;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.actuate.endpoint.IndicatedHealthDescriptor;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.annotation.JsonNaming;
import tools.jackson.databind.node.ObjectNode;

/**
 * esrel-client in a Spring Boot 4.0 application: Boot 4.0.7 manages elasticsearch-java 9.2.x, and with Jackson 3 on
 * the class path ({@code spring-boot-starter-jackson}) its auto-configuration builds the client on a
 * {@link Rest5ClientTransport} with a {@link Jackson3JsonpMapper}.
 */
@EnabledIfSystemProperty(
        named = "esrel.es.version",
        matches = "9\\..*",
        disabledReason =
                "Boot 4's elasticsearch-java 9.2 talks to Elasticsearch 9 only; -Delasticsearch.version names an"
                        + " 8.x node, which the Boot 3.5 IT covers")
class Boot4ApplicationIT extends AbstractBootApplicationIT implements LockRegistryChecks {

    @Override
    protected Expected expected() {
        return new Expected(
                "4.0.",
                "9.2.",
                Rest5ClientTransport.class,
                Jackson3JsonpMapper.class,
                "Jackson " + tools.jackson.databind.cfg.PackageVersion.VERSION);
    }

    @Autowired
    HealthEndpoint health;

    @Override
    protected HealthView esrelHealth() {
        HealthDescriptor esrel = health.healthForPath("esrel");
        assertThat(esrel).isInstanceOf(IndicatedHealthDescriptor.class);
        return new HealthView(esrel.getStatus().getCode(), ((IndicatedHealthDescriptor) esrel).getDetails());
    }

    /** Named by a Jackson 3 annotation: only the application's Jackson 3 mapper reads it, Jackson 2 does not. */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    record Invoice(String invoiceNumber, long amountCents) {}

    /** Occ writes and reads the caller's documents with the client's own mapper, not a Jackson 2 one of its own. */
    @Test
    void shouldMapOccDocumentsWithTheApplicationsJackson3Mapper() throws IOException {
        createIndex("invoices", 1, m -> m);

        Outcome<Invoice> created = occ.upsert(
                "invoices",
                "i-1",
                Invoice.class,
                () -> new Invoice("2026-001", 0),
                i -> new Invoice(i.invoiceNumber(), i.amountCents() + 1250));
        assertThat(created.status()).isEqualTo(Outcome.Status.CREATED);
        ObjectNode stored =
                es.get(g -> g.index("invoices").id("i-1"), ObjectNode.class).source();
        assertThat(stored.propertyNames()).containsExactlyInAnyOrder("invoice_number", "amount_cents");

        Outcome<Invoice> doubled =
                occ.update("invoices", "i-1", Invoice.class, i -> new Invoice(i.invoiceNumber(), i.amountCents() * 2));
        assertThat(doubled.value()).isEqualTo(new Invoice("2026-001", 2500));
    }
}
