"""Looking at a screenshot as a person would: which test photo is on screen, where, and
whether it is upright.

Each test photo is four flat quadrants of four saturated colours, and no two photos share a
colour. A screenshot is cut into small blocks; a block counts as a colour only when every
pixel sampled in it is near that colour, so text, cursors and the edges between colours
count as nothing. Any two colours here are at least 127 apart (RGB distance) and a pixel
matches within 60, so a sixel palette or a JPEG's noise cannot turn one into another."""
import math

COLOURS = {
    "red": (255, 0, 0), "lime": (0, 255, 0), "blue": (0, 0, 255), "yellow": (255, 255, 0),
    "magenta": (255, 0, 255), "cyan": (0, 255, 255), "orange": (255, 128, 0), "spring": (0, 255, 128),
    "purple": (128, 0, 255), "chartreuse": (128, 255, 0), "pink": (255, 0, 128), "sky": (0, 128, 255),
}
NEAR = 60
BLOCK = 6
# The share of a quadrant's blocks that must show its colour: the rest are its edges.
FILLED = 0.9


def nearest_colour(pixel, cache={}):
    """The name of the test colour this pixel shows, or None."""
    if pixel not in cache:
        name, distance = min(((name, math.dist(pixel, rgb)) for name, rgb in COLOURS.items()),
                             key=lambda pair: pair[1])
        cache[pixel] = name if distance <= NEAR else None
    return cache[pixel]


class BlockMap:
    """The screenshot cut into BLOCK×BLOCK blocks, each the colour all its sampled pixels show."""

    def __init__(self, image):
        self.columns, self.rows = image.width // BLOCK, image.height // BLOCK
        self.names = [[self._block(image, column, row) for column in range(self.columns)]
                      for row in range(self.rows)]

    @staticmethod
    def _block(image, column, row):
        left, top = column * BLOCK, row * BLOCK
        samples = {nearest_colour(image.pixel(left + dx, top + dy)) for dx in (1, BLOCK - 2) for dy in (1, BLOCK - 2)}
        return samples.pop() if len(samples) == 1 else None

    def blocks_of(self, names):
        return [(column, row) for row, line in enumerate(self.names) for column, name in enumerate(line)
                if name in names]

    def count(self, names):
        return len(self.blocks_of(names))


class Found:
    """Where a test photo shows (in pixels of the screenshot) and how well each quadrant fills
    its quarter of that rectangle: all near 1 when the photo is whole and upright."""

    def __init__(self, left, top, right, bottom, fills):
        self.left, self.top, self.right, self.bottom = left, top, right, bottom
        self.fills = fills

    @property
    def width(self):
        return self.right - self.left

    @property
    def height(self):
        return self.bottom - self.top

    @property
    def upright(self):
        return min(self.fills) >= FILLED

    def __repr__(self):
        fills = ", ".join(f"{fill:.2f}" for fill in self.fills)
        return f"photo at x {self.left}-{self.right}, y {self.top}-{self.bottom} (quadrants filled {fills})"


def find_photo(blocks, quadrants):
    """Where the photo whose quadrants are `quadrants` (top-left, top-right, bottom-left,
    bottom-right) shows, or None when none of its colours is on screen."""
    own = blocks.blocks_of(quadrants)
    if not own:
        return None
    left, right = min(c for c, _ in own), max(c for c, _ in own) + 1
    top, bottom = min(r for _, r in own), max(r for _, r in own) + 1
    middle_x, middle_y = (left + right) / 2, (top + bottom) / 2
    fills = []
    for index, name in enumerate(quadrants):
        columns = range(left, math.floor(middle_x)) if index % 2 == 0 else range(math.ceil(middle_x), right)
        rows = range(top, math.floor(middle_y)) if index < 2 else range(math.ceil(middle_y), bottom)
        # Blocks next to the edges between quadrants may straddle them.
        inner = [(c, r) for c in columns for r in rows
                 if abs(c + 0.5 - middle_x) > 1.5 and abs(r + 0.5 - middle_y) > 1.5]
        matching = sum(1 for c, r in inner if blocks.names[r][c] == name)
        fills.append(matching / len(inner) if inner else 0.0)
    return Found(left * BLOCK, top * BLOCK, right * BLOCK, bottom * BLOCK, fills)


def boundary_steps(image, found, above, below):
    """How finely an edge between two colours is drawn: the share of pixel rows, in the middle
    of the found photo, where the edge from `above` to `below` moves. A photo drawn in pixels
    moves its diagonal edge on almost every row; one drawn with text symbols moves it only a
    few times per text row, at most."""
    positions = []
    for y in range(found.top + found.height // 10, found.bottom - found.height // 10):
        row = [nearest_colour(image.pixel(x, y)) for x in range(found.left, found.right)]
        edge = next((x for x in range(1, len(row)) if row[x - 1] == below and row[x] == above), None)
        if edge is not None:
            positions.append(edge)
    if len(positions) < 2:
        return 0.0
    moves = sum(1 for a, b in zip(positions, positions[1:]) if a != b)
    return moves / (len(positions) - 1)


def extent(blocks, names):
    """The rectangle the blocks of these colours span, or None (no quadrants to judge)."""
    own = blocks.blocks_of(names)
    if not own:
        return None
    return Found(min(c for c, _ in own) * BLOCK, min(r for _, r in own) * BLOCK,
                 (max(c for c, _ in own) + 1) * BLOCK, (max(r for _, r in own) + 1) * BLOCK, ())
