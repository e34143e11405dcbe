"""What a person does with `vault view` and `vault list --per-row 4` in a terminal, and what
they must see after each key; each terminal's test file runs these in its own terminal."""
from case import after_status_change, arranged, shows_all_upright, shows_fitted, shows_none
from photos import LANDSCAPE, PHOTOS, PORTRAIT, THIRD


class ViewScenarios:
    """Mixed into a TerminalTestCase that names the terminal."""

    def open_photo(self, number=1):
        terminal = self.start("view", *self.mode, str(number))
        area = self.photo_area(terminal)
        photo = PHOTOS[number - 1]
        image, _ = self.look(terminal, f"photo {number} fitted",
                             shows_fitted(photo, area, [p for p in PHOTOS if p is not photo]))
        return terminal, area, image

    def test_photo_stays_after_a_redraw(self):
        # kitty showed the photo, then dropped it at the next frame that placed it again:
        # s (select, then unselect) draws the screen again, as its status line shows.
        terminal, area, image = self.open_photo(1)
        for step in ("selected", "unselected"):
            terminal.keys("s")
            image, _ = self.look(terminal, f"photo 1 still there once {step}",
                                 after_status_change(image, area, shows_fitted(LANDSCAPE, area)))
        terminal.keys("question")
        self.look(terminal, "help hides the photo", shows_none(PHOTOS))
        terminal.keys("question")
        self.look(terminal, "photo 1 again after the help", shows_fitted(LANDSCAPE, area, [PORTRAIT, THIRD]))

    def test_next_and_previous_photo(self):
        terminal, area, _ = self.open_photo(1)
        terminal.keys("n")
        self.look(terminal, "photo 2 after n", shows_fitted(PORTRAIT, area, [LANDSCAPE, THIRD]))
        terminal.keys("n")
        self.look(terminal, "photo 3 after n", shows_fitted(THIRD, area, [LANDSCAPE, PORTRAIT]))
        terminal.keys("p", "p")
        self.look(terminal, "photo 1 after p p", shows_fitted(LANDSCAPE, area, [PORTRAIT, THIRD]))

    def test_zoom_then_pan(self):
        terminal, area, _ = self.open_photo(1)
        _, blocks = self.look(terminal, "photo 1 before zoom", shows_fitted(LANDSCAPE, area))
        # Zoom in until the photo is wider than the window, so that → has something to show.
        for step in range(1, 5):
            before = [blocks.count([name]) for name in LANDSCAPE.quadrants]
            terminal.keys("plus")
            # The first step shows clearly more; later ones at least widen what shows.
            _, blocks = self.look(terminal, f"zoomed in {step}", zoomed_in(before, 1.15 if step == 1 else 1.0))
            red, lime = blocks.blocks_of(["red"]), blocks.blocks_of(["lime"])
            if min(c for c, _ in red) <= 1 and max(c for c, _ in lime) >= blocks.columns - 2:
                break
        terminal.keys("Right")
        self.look(terminal, "panned right", panned_right(max(c for c, _ in red)))

    def test_grid_after_escape_then_quit(self):
        terminal, area, _ = self.open_photo(1)
        terminal.keys("Escape")
        image, _ = self.look(terminal, "grid after escape", shows_all_upright(PHOTOS))
        # kitty dropped every thumbnail at the grid's next frame.
        terminal.keys("Right")
        self.look(terminal, "grid after a move", after_status_change(image, area, shows_all_upright(PHOTOS)))
        terminal.keys("q")
        status = self.wait_for_exit(terminal)
        self.look(terminal, "nothing after q", shows_none(PHOTOS))
        self.assertEqual(status, 0)

    def test_list_draws_thumbnails(self):
        terminal = self.start("list", "--per-row", "4", *self.mode)
        status = self.wait_for_exit(terminal)
        self.assertEqual(status, 0)
        self.look(terminal, "list thumbnails", shows_all_upright(PHOTOS))


def zoomed_in(fitted_counts, growth):
    """The condition after `+`: every quadrant of photo 1 still in its place around the others
    (the zoom keeps the centre), each showing more than `growth` times what it showed."""
    def condition(image, blocks):
        ok, counts = arranged(LANDSCAPE, blocks)
        grown = all(count > growth * before for count, before in zip(counts, fitted_counts))
        return ok and grown, f"blocks of each quadrant {counts}, fitted {fitted_counts}, in place: {ok}"
    return condition


def panned_right(red_right_edge):
    """The condition after →: the photo moved left under the window (more of its right half
    shows), its quadrants still in place."""
    def condition(image, blocks):
        ok, counts = arranged(LANDSCAPE, blocks)
        red = blocks.blocks_of(["red"])
        edge = max(c for c, _ in red) if red else None
        moved = edge is not None and edge < red_right_edge
        return ok and moved, f"red ends at block {edge} (was {red_right_edge}); in place: {ok}; blocks {counts}"
    return condition
