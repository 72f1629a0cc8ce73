package io.idempotent.examples.rabbitmq;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import java.io.IOException;
import java.net.URISyntaxException;
import java.security.GeneralSecurityException;
import java.util.concurrent.TimeoutException;

/**
 * A RabbitMQ broker named by an AMQP URI ({@code amqp://user:password@host:5672/vhost}). Connections it
 * opens recover automatically after a network failure (the client's default), re-registering their
 * consumers; deliveries that were unacknowledged when the connection dropped are delivered again by the
 * broker. Thread-safe.
 */
public final class RabbitBroker {

  /** The broker of a stock local installation. */
  public static final String DEFAULT_URI = "amqp://guest:guest@127.0.0.1:5672";

  private final ConnectionFactory factory = new ConnectionFactory();

  public RabbitBroker(String uri) {
    try {
      factory.setUri(uri);
    } catch (URISyntaxException | GeneralSecurityException | IllegalArgumentException e) {
      throw new IllegalArgumentException("Not an AMQP URI: " + uri + " (" + e.getMessage() + ")", e);
    }
    factory.setConnectionTimeout(5_000);
    factory.setNetworkRecoveryInterval(500);
  }

  /** The factory, to change before connecting (a socket configurator, recovery settings). */
  public ConnectionFactory factory() {
    return factory;
  }

  /** A new connection named {@code name} (the broker's management UI shows it). The caller closes it. */
  public Connection connect(String name) throws IOException, TimeoutException {
    return factory.newConnection(name);
  }

  /** The broker's address without credentials, for people. */
  public String address() {
    return factory.getHost() + ":" + factory.getPort();
  }

  /** Why the broker cannot be used, in one line, or "" when it opens a connection. */
  public String problem() {
    try (Connection c = factory.newConnection("idempotent-probe")) {
      return c.isOpen() ? "" : "RabbitMQ at " + address() + " closed the connection at once";
    } catch (IOException | TimeoutException e) {
      Throwable cause = e.getCause() != null && e.getMessage() == null ? e.getCause() : e;
      return "RabbitMQ does not answer at " + address() + " (" + cause.getClass().getSimpleName() + ": "
          + cause.getMessage() + ")";
    }
  }

  @Override
  public String toString() {
    return "RabbitMQ " + address();
  }
}
