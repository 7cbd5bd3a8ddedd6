"""HTML tags in Markdown (render/rawhtml.py): formatting tags without attributes kept where they open
and close in order, every other tag shown exactly as written, with one warning per tag name."""

from __future__ import annotations

import pytest

from site_builder.render.markdown import render_markdown


def rendered(text: str) -> tuple[str, list[tuple[int, str]]]:
    doc, warnings = render_markdown(text, "t/A-x/statement.md")
    return doc.html, warnings


@pytest.mark.parametrize(
    ("markdown", "html"),
    [
        ("one<br />two<br>three<BR/>four\n", "<p>one<br>two<br>three<br>four</p>\n"),
        ("H<sub>2</sub>O and x<sup>2</sup>\n", "<p>H<sub>2</sub>O and x<sup>2</sup></p>\n"),
        (
            "<b>bold</b>, <I>it</I>, <em>e</em>, <strong>s</strong>\n",
            "<p><b>bold</b>, <i>it</i>, <em>e</em>, <strong>s</strong></p>\n",
        ),
        ("<u>u</u> <s>s</s> <del>d</del> < b>\n", "<p><u>u</u> <s>s</s> <del>d</del> &lt; b&gt;</p>\n"),
        ("<b >spaced</b >\n", "<p><b>spaced</b></p>\n"),
        ("<b><i>in order</i></b>\n", "<p><b><i>in order</i></b></p>\n"),
        ("a <!-- the author's note --> b\n", "<p>a  b</p>\n"),
        ("*a <b>x</b> b* and **<i>y</i>**\n", "<p><em>a <b>x</b> b</em> and <strong><i>y</i></strong></p>\n"),
    ],
)
def test_formatting_tags_without_attributes_are_kept(markdown: str, html: str) -> None:
    assert rendered(markdown) == (html, [])


@pytest.mark.parametrize(
    ("markdown", "html", "warned"),
    [
        ("<b>never closed\n", "<p>&lt;b&gt;never closed</p>\n", ["<b>"]),
        ("closed </sub> first\n", "<p>closed &lt;/sub&gt; first</p>\n", ["</sub>"]),
        ("<b><i>x</b></i>\n", "<p>&lt;b&gt;<i>x&lt;/b&gt;</i></p>\n", ["<b>"]),
        ("<b>one paragraph\n\nanother</b>\n", "<p>&lt;b&gt;one paragraph</p>\n<p>another&lt;/b&gt;</p>\n", ["<b>"]),
    ],
)
def test_a_tag_that_does_not_close_in_order_in_its_paragraph_is_text(
    markdown: str, html: str, warned: list[str]
) -> None:
    assert rendered(markdown) == (
        html,
        [(1, f"HTML tag {w!r} is shown as text: it does not open and close in order in its paragraph") for w in warned],
    )


def test_any_other_tag_is_shown_exactly_as_written_once_warned_per_name_at_its_line() -> None:
    text = (
        "# Title\n\n"
        'First, "quoted".\n'
        'An <abbr title="t">ab</abbr> and <span style="color:red">red</span>.\n\n'
        '<span class="x">again</span> <script>alert(1)</script> <b onclick="alert(2)">b</b>\n'
        "\nThree lines,\nthe <p> on the second,\nand the <div> on the third.\n"
    )
    html, warnings = rendered(text)
    assert html == (
        "<p>First, “quoted”.\n"
        'An &lt;abbr title="t"&gt;ab&lt;/abbr&gt; and &lt;span style="color:red"&gt;red&lt;/span&gt;.</p>\n'
        '<p>&lt;span class="x"&gt;again&lt;/span&gt; &lt;script&gt;alert(1)&lt;/script&gt;'
        ' &lt;b onclick="alert(2)"&gt;b&lt;/b&gt;</p>\n'
        "<p>Three lines,\nthe &lt;p&gt; on the second,\nand the &lt;div&gt; on the third.</p>\n"
    )
    rule = (
        "is shown as text: only formatting tags without attributes are kept"
        " (<b>, <strong>, <i>, <em>, <u>, <s>, <del>, <sub>, <sup>, <br>); an image is ![text](file)"
    )
    assert warnings == [
        (4, f"HTML tag '<abbr title=\"t\">' {rule}"),
        (4, f"HTML tag '<span style=\"color:red\">' {rule}"),
        (6, f"HTML tag '<script>' {rule}"),
        (6, f"HTML tag '<b onclick=\"alert(2)\">' {rule}"),
        (9, f"HTML tag '<p>' {rule}"),
        (10, f"HTML tag '<div>' {rule}"),
    ]


ASSETS = {"tex/a.png": (500, 300), "b.png": None}  # b.png: a file whose size its header does not give


def imaged(text: str) -> tuple[str, list[tuple[int, str]]]:
    doc, warnings = render_markdown(text, "t/A-x/statement.md", assets=ASSETS, asset_base="files/")
    return doc.html, warnings


@pytest.mark.parametrize(
    ("markdown", "img"),
    [
        ('<img src="tex/a.png" width=250 />', 'src="files/tex/a.png" alt="" width="250" height="150"'),
        ("<IMG SRC='./tex/a.png' HEIGHT=\"60px\">", 'src="files/tex/a.png" alt="" width="100" height="60"'),
        ('<img src=tex/a.png width="40" height="400">', 'src="files/tex/a.png" alt="" width="40" height="400"'),
        (
            '<img src="tex/a.png" alt="A &amp; &quot;B&quot;" title=\'<t>\'>',
            'src="files/tex/a.png" alt="A &amp; &quot;B&quot;" title="&lt;t&gt;" width="500" height="300"',
        ),
        ('<img src="tex/a.png" width="50%">', 'src="files/tex/a.png" alt="" width="500" height="300"'),
        ('<img src="b.png" width=250>', 'src="files/b.png" alt="" width="250"'),
        ('<img src="b.png">', 'src="files/b.png" alt=""'),
        ('<img src="tex/a.png" src="b.png">', 'src="files/tex/a.png" alt="" width="500" height="300"'),
    ],
)
def test_an_html_image_is_an_image_of_the_size_it_asks_for(markdown: str, img: str) -> None:
    style = ' style="width: 50%"' if "%" in markdown else ""
    assert imaged(f"See {markdown} here.\n") == (
        f'<p>See <img {img} loading="lazy" decoding="async"{style}> here.</p>\n',
        [],
    )


def test_an_html_images_other_attributes_are_dropped_with_a_warning() -> None:
    text = 'One.\n\n<img src="tex/a.png" onerror="alert(1)" style="float:left" width=50% height=9 class=x>\n'
    rule = "an HTML image keeps only src, alt, title, a width and height in pixels, or a width in percent"
    assert imaged(text) == (
        '<p>One.</p>\n<p><img src="files/tex/a.png" alt="" width="500" height="300" loading="lazy"'
        ' decoding="async" style="width: 50%"></p>\n',
        [(3, f"image 'tex/a.png': class, onerror, style, height='9' dropped; {rule}")],
    )
    assert imaged('<img src="tex/a.png" width="15em" height=-3>\n')[1] == [
        (1, f"image 'tex/a.png': width='15em', height='-3' dropped; {rule}")
    ]
    assert imaged("<img src=tex/a.png ismap height>\n")[1] == [
        (1, f"image 'tex/a.png': ismap, height='' dropped; {rule}")  # attributes without a value
    ]
    assert imaged("*a* <img src=b.png> *b* and **c**\n")[0] == (  # emphasis on either side still pairs
        '<p><em>a</em> <img src="files/b.png" alt="" loading="lazy" decoding="async"> <em>b</em>'
        " and <strong>c</strong></p>\n"
    )


@pytest.mark.parametrize(
    ("markdown", "warning"),
    [
        ('<img src="../B-y/a.png">', "image '../B-y/a.png' dropped: images must be files in the problem folder"),
        (
            '<img src="https://example.org/a.png">',
            "image 'https://example.org/a.png' dropped: images must be files in the problem folder",
        ),
        ('<img src="c.png" alt="a c">', "image 'c.png' not found in the problem folder; dropped"),
    ],
)
def test_an_html_image_is_checked_as_a_markdown_image_is(markdown: str, warning: str) -> None:
    html, warnings = imaged(f"x {markdown}\n")
    assert (html, warnings) == (f"<p>x {'a c' if 'alt' in markdown else ''}</p>\n", [(1, warning)])


def test_an_img_tag_without_a_source_is_text() -> None:
    html, warnings = imaged('<img alt="x"> <img src="">\n')
    assert html == '<p>&lt;img alt="x"&gt; &lt;img src=""&gt;</p>\n'
    assert [w for _, w in warnings] == [
        "HTML tag '<img alt=\"x\">' is shown as text: only formatting tags without attributes are kept"
        " (<b>, <strong>, <i>, <em>, <u>, <s>, <del>, <sub>, <sup>, <br>); an image is ![text](file)"
    ]


def test_an_autolink_and_a_lone_angle_bracket_are_not_tags() -> None:
    assert rendered("<https://example.org> and 1 < 2 > 0\n") == (
        '<p><a href="https://example.org">https://example.org</a> and 1 &lt; 2 &gt; 0</p>\n',
        [],
    )


def test_a_headings_id_and_a_title_leave_its_kept_tags_out() -> None:
    doc, warnings = render_markdown("# Water, H<sub>2</sub>O\n\n## Why <b>x</b><sup>2</sup>\n\nText.\n", "t/A/s.md")
    assert (doc.title, [(h.id, h.html) for h in doc.toc], warnings) == (
        "Water, H2O",
        [("why-x2", "Why <b>x</b><sup>2</sup>")],  # the contents show the heading as the page does
        [],
    )
    assert doc.html.startswith('<h3 id="why-x2">Why <b>x</b><sup>2</sup><a class="anchor"')
