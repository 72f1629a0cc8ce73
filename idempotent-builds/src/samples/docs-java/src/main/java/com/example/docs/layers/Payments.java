package com.example.docs.layers;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jdbi.v3.core.Handle;

/** docs/LAYERS.md, state-machine guards: an order paid once, the update count deciding. */
public class Payments {

  public final List<Long> receiptsSent = new CopyOnWriteArrayList<>();

  public void pay(Handle handle, long orderId) {
    // README snippet: layers-guard
    receiptsSent.add(orderId);
  }
}
