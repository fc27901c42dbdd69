// Enter sends what was written (Shift+Enter makes a new line; a character still being
// composed by an input method is not sent): the reply boxes and the try-out chat.
import type { KeyboardEvent } from "react";

export const sendOnEnter =
  (send: () => void) =>
  (event: KeyboardEvent<HTMLTextAreaElement>): void => {
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      send();
    }
  };
