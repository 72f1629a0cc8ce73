package io.idempotent.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The jar describes every {@code idempotent.*} property for the IDE, each with what it does. */
class ConfigurationMetadataTest {

  @Test
  void everyPropertyIsDescribedForTheIde() throws Exception {
    Map<String, String> described = new HashMap<>();
    try (InputStream in = getClass().getClassLoader()
        .getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
      assertThat(in).as("the metadata the configuration processor writes").isNotNull();
      for (JsonNode p : new ObjectMapper().readTree(in).get("properties")) {
        described.put(p.get("name").asText(), p.path("description").asText(""));
      }
    }

    assertThat(described).containsOnlyKeys("idempotent.enabled", "idempotent.ttl", "idempotent.lease",
        "idempotent.wait-timeout", "idempotent.missing-key", "idempotent.store", "idempotent.jdbi.table",
        "idempotent.jdbi.mode", "idempotent.jdbi.require-transaction", "idempotent.jdbi.create-schema",
        "idempotent.jdbi.operation-timeout", "idempotent.validate-on-startup",
        "idempotent.caffeine.maximum-completed", "idempotent.http.enabled", "idempotent.http.order",
        "idempotent.metrics.enabled", "idempotent.metrics.observations", "idempotent.metrics.store-operations");
    described.forEach((name, description) -> assertThat(description).as(name).isNotBlank());
  }
}
