package io.idempotent.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.LocalDate;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class DemoOptionsTest {

  @Test
  void parse_nothing_isTheEmbeddedDefaultKeepingEarlierRecords() {
    DemoOptions o = DemoOptions.parse(List.of(), new Properties());
    assertThat(o.store()).isEqualTo("h2");
    assertThat(o.fresh()).isFalse();
    assertThat(o.jdbiSettings()).isEmpty(); // no url: the JDBI provider's H2 file in ~/.idempotent
    assertThat(o.today()).isEqualTo(LocalDate.now());
  }

  @Test
  void parse_postgresFlag_pointsAtTheTestDatabaseUnlessPropertiesSayOtherwise() {
    DemoOptions o = DemoOptions.parse(List.of("--postgres", "--fresh"), new Properties());
    assertThat(o.fresh()).isTrue();
    assertThat(o.jdbiSettings()).containsEntry("url", DemoOptions.DEFAULT_POSTGRES_URL)
        .containsEntry("user", "idempotent").containsEntry("password", "idempotent");

    Properties p = new Properties();
    p.setProperty("demo.store", "postgres");
    p.setProperty("demo.postgres.url", "jdbc:postgresql://db:5432/shop");
    p.setProperty("demo.fresh", "true");
    DemoOptions fromProperties = DemoOptions.parse(List.of(), p);
    assertThat(fromProperties.fresh()).isTrue();
    assertThat(fromProperties.jdbiSettings()).containsEntry("url", "jdbc:postgresql://db:5432/shop");
  }

  @Test
  void parse_libraryProperties_reachTheStore() {
    Properties p = new Properties();
    p.setProperty("idempotent.jdbi.url", "jdbc:h2:file:/tmp/shop");
    p.setProperty("idempotent.jdbi.pool-size", "3");
    p.setProperty("demo.today", "2025-06-02");
    DemoOptions o = DemoOptions.parse(List.of(), p);
    assertThat(o.jdbiSettings()).containsEntry("url", "jdbc:h2:file:/tmp/shop").containsEntry("pool-size", "3");
    assertThat(o.today()).isEqualTo(LocalDate.of(2025, 6, 2));
  }

  @Test
  void parse_unknownFlagOrStore_isRefused() {
    assertThatThrownBy(() -> DemoOptions.parse(List.of("--mysql"), new Properties()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--mysql");
    Properties p = new Properties();
    p.setProperty("demo.store", "oracle");
    assertThatThrownBy(() -> DemoOptions.parse(List.of(), p))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("oracle");
  }

  @Test
  void parse_http_servesOnThePortGivenOr8080() {
    DemoOptions plain = DemoOptions.parse(List.of(), new Properties());
    assertThat(plain.http()).isFalse();
    DemoOptions http = DemoOptions.parse(List.of("--http"), new Properties());
    assertThat(http.http()).isTrue();
    assertThat(http.port()).isEqualTo(8080);
    DemoOptions port = DemoOptions.parse(List.of("--http", "--port", "9091"), new Properties());
    assertThat(port.port()).isEqualTo(9091);
    assertThatThrownBy(() -> DemoOptions.parse(List.of("--http", "--port"), new Properties()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--port needs a number");
    assertThatThrownBy(() -> DemoOptions.parse(List.of("--port", "70000"), new Properties()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0 to 65535");
  }

  @Test
  void parse_broker_inProcessByDefault_rabbitmqByFlagOrProperty_othersRefused() {
    DemoOptions plain = DemoOptions.parse(List.of(), new Properties());
    assertThat(plain.broker()).isEqualTo(DemoOptions.IN_PROCESS);
    DemoOptions rabbit = DemoOptions.parse(List.of("--broker", "RabbitMQ"), new Properties());
    assertThat(rabbit.broker()).isEqualTo(DemoOptions.RABBITMQ);
    assertThat(rabbit.rabbitUri()).isEqualTo("amqp://guest:guest@127.0.0.1:5672");

    Properties p = new Properties();
    p.setProperty("demo.broker", "rabbitmq");
    p.setProperty("demo.rabbitmq.uri", "amqp://shop:secret@mq:5673/orders");
    DemoOptions fromProperties = DemoOptions.parse(List.of(), p);
    assertThat(fromProperties.broker()).isEqualTo(DemoOptions.RABBITMQ);
    assertThat(fromProperties.rabbitUri()).isEqualTo("amqp://shop:secret@mq:5673/orders");
    assertThat(DemoOptions.parse(List.of("--broker", "in-process"), p).broker()).isEqualTo(DemoOptions.IN_PROCESS);

    assertThatThrownBy(() -> DemoOptions.parse(List.of("--broker", "kafka"), new Properties()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("kafka");
    assertThatThrownBy(() -> DemoOptions.parse(List.of("--broker"), new Properties()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--broker needs");
    Properties badUri = new Properties();
    badUri.setProperty("demo.rabbitmq.uri", "http://mq:5672");
    assertThatThrownBy(() -> DemoOptions.parse(List.of("--broker", "rabbitmq"), badUri))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Not an AMQP URI");
  }
}
