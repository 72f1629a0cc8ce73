package io.idempotent.examples;

import io.idempotent.examples.rabbitmq.RabbitBroker;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * What the demo was asked to do, from command-line flags or the same settings as system properties
 * (handy with {@code mvn exec:java}). Immutable.
 *
 * @param fresh forget the demo's records and rows from earlier runs first
 * @param help print the usage and stop
 * @param store {@code h2} (the embedded default) or {@code postgres}
 * @param today the day the settlement scenario treats as today
 * @param jdbiSettings settings for the JDBI store ({@code url}, {@code user}, {@code password}, ...)
 * @param http serve the shop's checkout over HTTP instead of playing the scenarios
 * @param port the HTTP port (0: any free one)
 * @param broker where the consumer scenario's messages travel: {@code in-process} (a queue in memory, the
 *     default) or {@code rabbitmq}
 * @param rabbitUri the RabbitMQ broker's AMQP URI, with {@code --broker rabbitmq}
 */
public record DemoOptions(boolean fresh, boolean help, String store, LocalDate today, Map<String, String> jdbiSettings,
    boolean http, int port, String broker, String rabbitUri) {

  /** The PostgreSQL database the project's tests use. */
  public static final String DEFAULT_POSTGRES_URL = "jdbc:postgresql://127.0.0.1:5432/idempotent_test";

  /** The consumer scenario's messages stay in memory. */
  public static final String IN_PROCESS = "in-process";

  /** The consumer scenario's messages travel through a RabbitMQ queue. */
  public static final String RABBITMQ = "rabbitmq";

  public static final String USAGE = String.join("\n",
      "Usage: Demo [--fresh] [--postgres] [--broker in-process|rabbitmq] [--http [--port N]] [--help]",
      "  --fresh     forget the demo's records from earlier runs (-Ddemo.fresh=true)",
      "  --postgres  use PostgreSQL instead of the embedded H2 file (-Ddemo.store=postgres);",
      "              -Ddemo.postgres.url=... (default " + DEFAULT_POSTGRES_URL + "),",
      "              -Ddemo.postgres.user=... and -Ddemo.postgres.password=... (default idempotent)",
      "  --broker B  where the consumer scenario's messages travel: in-process (default) or rabbitmq",
      "              (-Ddemo.broker=B); -Ddemo.rabbitmq.uri=... (default " + RabbitBroker.DEFAULT_URI + ")",
      "  --http      serve the checkout on http://localhost:PORT/orders until stopped (-Ddemo.http=true)",
      "  --port N    the HTTP port, default 8080; 0 picks a free one (-Ddemo.port=N)",
      "  -Didempotent.jdbi.url=...  any other database or H2 file, as the library reads it",
      "  -Ddemo.today=2025-06-02    the day the settlement job settles (with the day before)");

  public DemoOptions {
    jdbiSettings = Map.copyOf(jdbiSettings);
  }

  /**
   * Reads flags from {@code args} and settings from {@code properties}; flags win.
   *
   * @throws IllegalArgumentException for an unknown flag or a bad value
   */
  public static DemoOptions parse(List<String> args, Properties properties) {
    boolean fresh = Boolean.parseBoolean(properties.getProperty("demo.fresh", "false"));
    String store = properties.getProperty("demo.store", "h2").trim().toLowerCase(Locale.ROOT);
    boolean help = false;
    boolean http = Boolean.parseBoolean(properties.getProperty("demo.http", "false"));
    String port = properties.getProperty("demo.port", "8080");
    String broker = properties.getProperty("demo.broker", IN_PROCESS).trim().toLowerCase(Locale.ROOT);
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      switch (arg) {
        case "--http" -> http = true;
        case "--port" -> {
          if (i + 1 >= args.size()) {
            throw new IllegalArgumentException("--port needs a number");
          }
          port = args.get(++i);
          http = true;
        }
        case "--broker" -> {
          if (i + 1 >= args.size()) {
            throw new IllegalArgumentException("--broker needs in-process or rabbitmq");
          }
          broker = args.get(++i).trim().toLowerCase(Locale.ROOT);
        }
        case "--fresh" -> fresh = true;
        case "--postgres" -> store = "postgres";
        case "--h2" -> store = "h2";
        case "--help", "-h" -> help = true;
        default -> throw new IllegalArgumentException("Unknown option: " + arg);
      }
    }
    if (!store.equals("h2") && !store.equals("postgres")) {
      throw new IllegalArgumentException("demo.store is '" + store + "'; expected h2 or postgres");
    }
    if (!broker.equals(IN_PROCESS) && !broker.equals(RABBITMQ)) {
      throw new IllegalArgumentException("The broker is '" + broker + "'; expected in-process or rabbitmq");
    }
    Map<String, String> settings = new HashMap<>();
    // the library's own properties apply as they would in an application (idempotent.jdbi.url, ...)
    for (String name : properties.stringPropertyNames()) {
      if (name.startsWith("idempotent.jdbi.")) {
        settings.put(name.substring("idempotent.jdbi.".length()), properties.getProperty(name));
      }
    }
    if (store.equals("postgres")) {
      settings.put("url", properties.getProperty("demo.postgres.url", DEFAULT_POSTGRES_URL));
      settings.put("user", properties.getProperty("demo.postgres.user", "idempotent"));
      settings.put("password", properties.getProperty("demo.postgres.password", "idempotent"));
    }
    LocalDate today;
    try {
      String day = properties.getProperty("demo.today");
      today = day == null || day.isBlank() ? LocalDate.now() : LocalDate.parse(day.trim());
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("demo.today is not a date such as 2025-06-02", e);
    }
    int portNumber;
    try {
      portNumber = Integer.parseInt(port.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("The port is '" + port + "'; expected a number from 0 to 65535", e);
    }
    if (portNumber < 0 || portNumber > 65535) {
      throw new IllegalArgumentException("The port is " + portNumber + "; expected a number from 0 to 65535");
    }
    String rabbitUri = properties.getProperty("demo.rabbitmq.uri", RabbitBroker.DEFAULT_URI).trim();
    if (broker.equals(RABBITMQ)) {
      new RabbitBroker(rabbitUri); // refuses a malformed URI here, with the usage
    }
    return new DemoOptions(fresh, help, store, today, settings, http, portNumber, broker, rabbitUri);
  }
}
