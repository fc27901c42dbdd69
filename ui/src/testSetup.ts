// Every UI test's waits as generous as a busy machine needs: testing-library gives
// `waitFor` and `findBy…` 1 s by default, and an ELK layout in jsdom on a loaded
// 2-core machine took longer (a fresh clone's `make test`, Thumbnail.test.tsx). A
// wait whose condition is met returns at once; only a broken one waits this long.
import { configure } from "@testing-library/react";

configure({ asyncUtilTimeout: 20_000 });
