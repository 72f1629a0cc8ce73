package io.idempotent.examples.shop;

/**
 * The gateway declined the card: a business outcome, not a glitch. Methods declare it final, so it is
 * recorded and replayed to a retry instead of asking the gateway again. The public {@code (String)}
 * constructor lets the library recreate it on replay.
 */
public class CardDeclinedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public CardDeclinedException(String message) {
    super(message);
  }
}
