package io.idempotent.woven;

import java.util.ArrayList;
import java.util.List;

/** A mutable object graph that may point back at itself. No toString of its own. */
public class Parcel {

  private final String label;
  private final List<Parcel> contents = new ArrayList<>();
  private Parcel next;

  public Parcel(String label) {
    this.label = label;
  }

  public String getLabel() {
    return label;
  }

  void add(Parcel p) {
    contents.add(p);
  }

  void next(Parcel p) {
    next = p;
  }
}
