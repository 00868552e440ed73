// The top bar's indicator: the ring of the overall progress, drawn with Cairo at the
// panel's icon size in the theme's colours, named for the accessibility bus by the summary
// ("2 jobs, 42 %"), and its menu, one row per top-level task. It draws what the view
// describes and holds no state of its own beyond the actors.

import Clutter from 'gi://Clutter';
import GObject from 'gi://GObject';
import St from 'gi://St';

import * as PanelMenu from 'resource:///org/gnome/shell/ui/panelMenu.js';
import * as PopupMenu from 'resource:///org/gnome/shell/ui/popupMenu.js';

import {TaskRow} from './taskRow.js';
import {sameLook, pixelsPerTurn} from './ringShape.js';

// The colours come from the stylesheet (stylesheet.css) and the panel's theme: the track
// is the panel's foreground, faint; the arc and the mark have their own properties there.
const COLOR_PROPERTIES = {
    running: '-progressd-arc-color',
    paused: '-progressd-paused-color',
    failed: '-progressd-failure-color',
};
const OPAQUE_BLACK = Object.freeze({red: 0, green: 0, blue: 0, alpha: 255});
// The ring's size in the stylesheet, for a ring not yet in the bar.
const RING_SIZE = 16;

const RingArea = GObject.registerClass(
class RingArea extends St.DrawingArea {
    _init() {
        super._init({style_class: 'progressd-ring', y_align: Clutter.ActorAlign.CENTER});
        this._shape = null;
    }

    // A new frame only when the arc moves a device pixel (every repaint is a frame of the
    // whole compositor); the shape drawn stays the one painted until then.
    setShape(shape) {
        if (this.width > 0 && sameLook(this._shape, shape, this.pixelsPerTurn()))
            return;
        this._shape = shape;
        this.queue_repaint();
    }

    // The arc's length round in device pixels, at the size laid out (the stylesheet's until
    // then) and the monitor's scale (a number from GNOME 3.38 on).
    pixelsPerTurn() {
        const size = Math.min(this.width, this.height);
        const scale = this.get_resource_scale();
        return pixelsPerTurn(size > 0 ? size : RING_SIZE, typeof scale === 'number' && scale > 0 ? scale : 1);
    }

    _line(size) {
        return Math.max(2, Math.round(size / 7));
    }

    _radius(size) {
        return size / 2 - this._line(size) / 2 - 0.5;
    }

    _color(node, property, fallback) {
        const [found, color] = node.lookup_color(property, false);
        return found ? color : fallback;
    }

    // The theme's colours are Clutter.Color up to GNOME 46 and Cogl.Color from 47 (where
    // Clutter.cairo_set_source_color went); both have 0-255 channels.
    _source(cr, color, alpha = color.alpha / 255) {
        cr.setSourceRGBA(color.red / 255, color.green / 255, color.blue / 255, alpha);
    }

    vfunc_repaint() {
        const cr = this.get_context();
        const [width, height] = this.get_surface_size();
        const node = this.get_theme_node();
        const shape = this._shape;
        const foreground = node.get_foreground_color();
        const line = this._line(Math.min(width, height));
        const radius = this._radius(Math.min(width, height));
        const [cx, cy] = [width / 2, height / 2];
        cr.setLineWidth(line);
        this._source(cr, foreground, 0.35);
        cr.arc(cx, cy, radius, 0, 2 * Math.PI);
        cr.stroke();
        if (shape?.arc) {
            this._source(cr, this._color(node, COLOR_PROPERTIES[shape.color], foreground));
            cr.arc(cx, cy, radius, shape.arc.start, shape.arc.end);
            cr.stroke();
        }
        if (shape?.failureMark) {
            // A dot at the lower right, in the failure's colour, ringed in the panel's
            // background so that it reads on the arc.
            const dot = Math.max(2.5, Math.min(width, height) / 5);
            const [mx, my] = [width - dot - 0.5, height - dot - 0.5];
            this._source(cr, this._color(node, '-progressd-mark-outline-color', OPAQUE_BLACK));
            cr.arc(mx, my, dot + 1, 0, 2 * Math.PI);
            cr.fill();
            this._source(cr, this._color(node, COLOR_PROPERTIES.failed, foreground));
            cr.arc(mx, my, dot, 0, 2 * Math.PI);
            cr.fill();
        }
        cr.$dispose();
    }
});

export const ProgressIndicator = GObject.registerClass(
class ProgressIndicator extends PanelMenu.Button {
    // actions.request(method, name), actions.clearEnded(), actions.menuOpen(open); words:
    // the view's words.
    _init(actions, words) {
        super._init(0.5, 'progressd', false);
        this.add_style_class_name('progressd-indicator');
        this._actions = actions;
        this._words = words;
        this._ring = new RingArea();
        this.add_child(this._ring);
        // The shell's BoxPointer keeps the whole menu in an offscreen buffer (ALWAYS, in 43
        // and 48), so a frame that moves one row's label or bar paints every row into it
        // again, and then the buffer: in GNOME Shell 48 (software GL) 11 to 14 ms of a frame
        // against 3.5 ms drawn in place with the rows' labels (taskRow.js). Only a fade
        // needs the buffer, and AUTOMATIC_FOR_OPACITY keeps it for that.
        this.menu.actor.offscreen_redirect = Clutter.OffscreenRedirect.AUTOMATIC_FOR_OPACITY;
        this._rows = new Map();
        this._rowSection = new PopupMenu.PopupMenuSection();
        this.menu.addMenuItem(this._rowSection);
        this._more = new PopupMenu.PopupMenuItem('', {reactive: false, can_focus: false});
        this._more.label.clutter_text.use_markup = false;
        this.menu.addMenuItem(this._more);
        this._separator = new PopupMenu.PopupSeparatorMenuItem();
        this.menu.addMenuItem(this._separator);
        this._clear = new PopupMenu.PopupMenuItem(words.clearEnded);
        this._clear.connect('activate', () => actions.clearEnded());
        this.menu.addMenuItem(this._clear);
        // The rows follow the tasks only while the menu is open (the controller hands them
        // over then): a closed menu costs the ring's repaint alone.
        this.menu.connect('open-state-changed', (menu, open) => actions.menuOpen(open));
    }

    // The ring's arc in device pixels, for what counts as a move worth a frame.
    ringPixelsPerTurn() {
        return this._ring.pixelsPerTurn();
    }

    static defaultRingPixelsPerTurn() {
        return pixelsPerTurn(RING_SIZE);
    }

    setShape(shape) {
        this._ring.setShape(shape);
    }

    // The menu's rows, from the view (taskView.describe).
    showRows(view) {
        const names = new Set(view.rows.map(row => row.name));
        for (const [name, item] of this._rows) {
            if (!names.has(name)) {
                item.destroy();
                this._rows.delete(name);
            }
        }
        view.rows.forEach((row, index) => {
            let item = this._rows.get(row.name);
            if (!item) {
                item = new TaskRow((method, name) => this._actions.request(method, name), this._words);
                this._rows.set(row.name, item);
                this._rowSection.addMenuItem(item, index);
            } else {
                this._rowSection.moveMenuItem(item, index);
            }
            item.update(row);
        });
        this._more.label.text = view.moreText;
        this._more.visible = view.more > 0;
        this._separator.visible = view.anyEnded;
        this._clear.visible = view.anyEnded;
    }
});
