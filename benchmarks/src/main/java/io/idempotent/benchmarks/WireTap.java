package io.idempotent.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP relay between the client and a PostgreSQL server that counts what crosses it, exactly: round
 * trips (each time the client speaks after the server has), bytes each way, and from the server's
 * messages the statements completed ({@code CommandComplete}) and the transactions committed — a
 * {@code COMMIT}, or statements run outside a transaction block (told by the {@code ReadyForQuery}
 * status), read-only ones included. The
 * client must not ask for TLS ({@code sslmode=disable}): the tap reads the protocol in the clear.
 */
final class WireTap implements AutoCloseable {

  /** What crossed the tap since the last {@link #reset()}. */
  record Counts(long roundTrips, long statements, long commits, long bytesToServer, long bytesToClient) {}

  private final ServerSocket listener;
  private final int serverPort;
  private final AtomicLong roundTrips = new AtomicLong();
  private final AtomicLong statements = new AtomicLong();
  private final AtomicLong commits = new AtomicLong();
  private final AtomicLong toServer = new AtomicLong();
  private final AtomicLong toClient = new AtomicLong();

  WireTap(int serverPort) throws IOException {
    this.serverPort = serverPort;
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::accept, "wire-tap");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  int port() {
    return listener.getLocalPort();
  }

  void reset() {
    roundTrips.set(0);
    statements.set(0);
    commits.set(0);
    toServer.set(0);
    toClient.set(0);
  }

  Counts counts() {
    return new Counts(roundTrips.get(), statements.get(), commits.get(), toServer.get(), toClient.get());
  }

  private void accept() {
    while (!listener.isClosed()) {
      try {
        Socket client = listener.accept();
        Socket server = new Socket(InetAddress.getLoopbackAddress(), serverPort);
        client.setTcpNoDelay(true);
        server.setTcpNoDelay(true);
        Conversation c = new Conversation();
        start(() -> c.clientToServer(client, server));
        start(() -> c.serverToClient(server, client));
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private static void start(Runnable r) {
    Thread t = new Thread(r, "wire-tap-pump");
    t.setDaemon(true);
    t.start();
  }

  /** One client connection: whose turn it is, and the server's messages as they arrive. */
  private final class Conversation {
    private volatile boolean serverSpokeLast = true;
    private final MessageReader messages = new MessageReader();

    void clientToServer(Socket from, Socket to) {
      pump(from, to, (buf, n) -> {
        if (serverSpokeLast) {
          roundTrips.incrementAndGet();
          serverSpokeLast = false;
        }
        toServer.addAndGet(n);
      });
    }

    void serverToClient(Socket from, Socket to) {
      pump(from, to, (buf, n) -> {
        serverSpokeLast = true;
        toClient.addAndGet(n);
        messages.read(buf, n);
      });
    }
  }

  private interface Chunk {
    void seen(byte[] buf, int n);
  }

  private static void pump(Socket from, Socket to, Chunk chunk) {
    byte[] buf = new byte[65536];
    try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
      int n;
      while ((n = in.read(buf)) > 0) {
        chunk.seen(buf, n); // counted before it is passed on, so the reply cannot overtake the count
        out.write(buf, 0, n);
        out.flush();
      }
    } catch (IOException e) {
      // the other side closed
    } finally {
      try {
        from.close();
        to.close();
      } catch (IOException ignored) {
        // closing
      }
    }
  }

  /**
   * Splits the server's byte stream into messages (a type byte, a length that counts itself, the body) and
   * counts completed statements and commits.
   */
  private final class MessageReader {
    private final byte[] header = new byte[5];
    private int headerFilled;
    private byte[] body = new byte[0];
    private int bodyFilled;
    private boolean inBody;
    private int statementsSinceReady;
    private boolean committedSinceReady;
    private boolean inTransaction;

    void read(byte[] buf, int n) {
      int i = 0;
      while (i < n) {
        if (!inBody) {
          int take = Math.min(5 - headerFilled, n - i);
          System.arraycopy(buf, i, header, headerFilled, take);
          headerFilled += take;
          i += take;
          if (headerFilled == 5) {
            int length = ((header[1] & 0xff) << 24) | ((header[2] & 0xff) << 16) | ((header[3] & 0xff) << 8)
                | (header[4] & 0xff);
            body = new byte[length - 4];
            bodyFilled = 0;
            inBody = true;
          }
        }
        if (inBody) {
          int take = Math.min(body.length - bodyFilled, n - i);
          System.arraycopy(buf, i, body, bodyFilled, take);
          bodyFilled += take;
          i += take;
          if (bodyFilled == body.length) {
            message((char) header[0], body);
            inBody = false;
            headerFilled = 0;
          }
        }
      }
    }

    private void message(char type, byte[] body) {
      if (type == 'C') { // CommandComplete: a NUL-terminated tag such as "INSERT 0 1" or "COMMIT"
        String tag = new String(body, 0, body.length - 1, StandardCharsets.US_ASCII);
        statements.incrementAndGet();
        statementsSinceReady++;
        if (tag.equals("COMMIT")) {
          committedSinceReady = true;
        }
      } else if (type == 'Z') { // ReadyForQuery: 'I' idle, 'T' in a transaction, 'E' in a failed one
        char status = (char) body[0];
        // a COMMIT, or statements run outside a transaction block: one implicit transaction up to here
        if (committedSinceReady || (!inTransaction && status == 'I' && statementsSinceReady > 0)) {
          commits.incrementAndGet();
        }
        inTransaction = status != 'I';
        statementsSinceReady = 0;
        committedSinceReady = false;
      }
    }
  }

  @Override
  public void close() throws IOException {
    listener.close();
  }
}
