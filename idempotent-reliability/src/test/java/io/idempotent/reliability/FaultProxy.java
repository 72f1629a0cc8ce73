package io.idempotent.reliability;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy on a loopback port in front of a database server, which a test tells to misbehave:
 * cut every open connection, refuse new ones, delay traffic, or drop connections after a number of
 * further bytes from the client (so that a statement reaches the server only in part). Point a pool
 * at {@link #port()}. Counts the faults it injected. Thread-safe.
 */
final class FaultProxy implements AutoCloseable {

  private final ServerSocket server;
  private final InetSocketAddress target;
  private final Set<Link> links = ConcurrentHashMap.newKeySet();
  private final Thread acceptor;
  private volatile boolean refusing;
  private volatile boolean silent;
  private volatile long delayMillis;
  /** Bytes still allowed from the client before new connections are dropped; negative when not armed. */
  private volatile long dropNewAfter = -1;

  final AtomicInteger connectionsCut = new AtomicInteger();
  final AtomicInteger connectionsRefused = new AtomicInteger();
  final AtomicInteger connectionsDroppedMidStream = new AtomicInteger();
  final AtomicInteger delayPeriods = new AtomicInteger();
  final AtomicInteger silentPeriods = new AtomicInteger();

  FaultProxy(String host, int port) throws IOException {
    this.target = new InetSocketAddress(host, port);
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.acceptor = new Thread(this::acceptLoop, "fault-proxy-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  int port() {
    return server.getLocalPort();
  }

  /** {@code url} with its host and port replaced by this proxy's. */
  String route(String jdbcUrl) {
    return jdbcUrl.replace(target.getHostString() + ":" + target.getPort(), "127.0.0.1:" + port());
  }

  /** Every fault injected so far. */
  int faults() {
    return connectionsCut.get() + connectionsRefused.get() + connectionsDroppedMidStream.get() + delayPeriods.get()
        + silentPeriods.get();
  }

  /** Back to normal: new connections accepted, no delay, nothing armed. Connections already cut stay cut. */
  void pass() {
    refusing = false;
    silent = false;
    delayMillis = 0;
    dropNewAfter = -1;
    for (Link l : links) {
      l.budget.set(-1);
    }
  }

  /** Accepts new connections and closes them at once (the server looks down). */
  void refuseNew() {
    refusing = true;
  }

  /** Closes every open connection, both ways, as a network failure or a server restart does. */
  int cutAll() {
    int n = 0;
    for (Link l : links) {
      if (l.close()) {
        n++;
      }
    }
    connectionsCut.addAndGet(n);
    return n;
  }

  /**
   * Drops all traffic, both ways, on open and new connections, without closing anything: the server
   * looks alive but never answers, as behind a network partition. Until {@link #pass()}.
   */
  void silence() {
    silent = true;
    silentPeriods.incrementAndGet();
  }

  /** Delays every chunk of traffic in both directions by {@code delay}. */
  void delay(Duration delay) {
    delayMillis = delay.toMillis();
    delayPeriods.incrementAndGet();
  }

  /**
   * Arms every connection (open and new) to be dropped once {@code bytes} more bytes have come from the
   * client: the statement being sent then reaches the server only in part.
   */
  void dropAfter(long bytes) {
    dropNewAfter = bytes;
    for (Link l : links) {
      l.budget.set(bytes);
    }
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return; // closed
      }
      if (refusing) {
        connectionsRefused.incrementAndGet();
        closeQuietly(client);
        continue;
      }
      try {
        Socket upstream = new Socket();
        upstream.connect(target, 2_000);
        client.setTcpNoDelay(true);
        upstream.setTcpNoDelay(true);
        Link link = new Link(client, upstream, dropNewAfter);
        links.add(link);
        link.start();
      } catch (IOException e) {
        closeQuietly(client);
      }
    }
  }

  @Override
  public void close() {
    closeQuietly(server);
    cutAll();
  }

  private static void closeQuietly(java.io.Closeable c) {
    try {
      c.close();
    } catch (IOException e) {
      // closing is best effort
    }
  }

  /** One proxied connection: a pump thread each way. */
  private final class Link {
    final Socket client;
    final Socket upstream;
    final AtomicLong budget;
    final AtomicBoolean closed = new AtomicBoolean();

    Link(Socket client, Socket upstream, long budget) {
      this.client = client;
      this.upstream = upstream;
      this.budget = new AtomicLong(budget);
    }

    void start() throws IOException {
      pump(client.getInputStream(), upstream.getOutputStream(), true, "fault-proxy-up");
      pump(upstream.getInputStream(), client.getOutputStream(), false, "fault-proxy-down");
    }

    private void pump(InputStream in, OutputStream out, boolean fromClient, String name) {
      Thread t = new Thread(() -> {
        byte[] buffer = new byte[16 * 1024];
        try {
          int n;
          while ((n = in.read(buffer)) >= 0) {
            long delay = delayMillis;
            if (delay > 0) {
              Thread.sleep(delay);
            }
            if (silent) {
              continue; // lost on the way
            }
            long allowed = fromClient ? budget.get() : -1;
            if (allowed >= 0 && n > allowed) {
              out.write(buffer, 0, (int) allowed); // the statement arrives in part
              out.flush();
              connectionsDroppedMidStream.incrementAndGet();
              close();
              return;
            }
            if (allowed >= 0) {
              budget.addAndGet(-n);
            }
            out.write(buffer, 0, n);
            out.flush();
          }
        } catch (IOException | InterruptedException e) {
          // the other side or a fault closed the link
        }
        close();
      }, name);
      t.setDaemon(true);
      t.start();
    }

    /** Closes both sockets; true if this call closed them. */
    boolean close() {
      if (!closed.compareAndSet(false, true)) {
        return false;
      }
      links.remove(this);
      closeQuietly(client);
      closeQuietly(upstream);
      return true;
    }
  }
}
