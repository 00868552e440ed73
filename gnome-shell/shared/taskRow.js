// One top-level task in the menu: its title, a progress bar that is a progress bar on the
// accessibility bus too (named by the title, valued by the percent), the daemon's label
// and time remaining, and Pause, Resume or Cancel where the task allows them. Every text
// is plain: a client's title never reaches Pango as markup.

import Atk from 'gi://Atk';
import Clutter from 'gi://Clutter';
import GObject from 'gi://GObject';
import St from 'gi://St';

import * as PopupMenu from 'resource:///org/gnome/shell/ui/popupMenu.js';

function plainLabel(styleClass) {
    const label = new St.Label({style_class: styleClass, x_expand: true});
    label.clutter_text.use_markup = false;
    label.clutter_text.ellipsize = 3; // Pango.EllipsizeMode.END, without importing Pango
    // The shell's labels keep their text in an offscreen buffer of their own (ALWAYS, in 43
    // and 48): filled again at every move of the row, it costs more than the text it holds.
    // Drawn in place, as the menu is (indicator.js), unless it fades.
    label.offscreen_redirect = Clutter.OffscreenRedirect.AUTOMATIC_FOR_OPACITY;
    return label;
}

// St has no progress bar: a track with a fill whose width is the fraction (from the
// right in a right-to-left locale), exposed as Atk's PROGRESS_BAR with the percent as
// its value, as the shell's own BarLevel exposes its level.
export const TaskBar = GObject.registerClass(
class TaskBar extends St.Widget {
    _init() {
        super._init({
            style_class: 'progressd-bar',
            accessible_role: Atk.Role.PROGRESS_BAR,
            x_expand: true,
        });
        this._fill = new St.Widget({style_class: 'progressd-bar-fill'});
        this.add_child(this._fill);
        this._fraction = 0;
        this._percent = 0;
        this._accessible = St.GenericAccessible.new_for_actor(this);
        this.set_accessible(this._accessible);
        this._accessible.connect('get-current-value', () => this._percent);
        this._accessible.connect('get-minimum-value', () => 0);
        this._accessible.connect('get-maximum-value', () => 100);
    }

    update(row) {
        this.accessible_name = row.title;
        this._fill.visible = !row.indeterminate;
        if (row.failed)
            this.add_style_class_name('failed');
        else
            this.remove_style_class_name('failed');
        const percent = row.percent ?? 0;
        if (this._fraction !== row.fraction) {
            this._fraction = row.fraction;
            this.queue_relayout();
        }
        if (this._percent !== percent) {
            this._percent = percent;
            this._accessible.notify('accessible-value');
        }
    }

    vfunc_allocate(box) {
        this.set_allocation(box);
        const content = this.get_theme_node().get_content_box(box);
        const width = Math.round((content.x2 - content.x1) * this._fraction);
        const fill = new Clutter.ActorBox();
        if (this.get_text_direction() === Clutter.TextDirection.RTL) {
            fill.x1 = content.x2 - width;
            fill.x2 = content.x2;
        } else {
            fill.x1 = content.x1;
            fill.x2 = content.x1 + width;
        }
        fill.y1 = content.y1;
        fill.y2 = content.y2;
        this._fill.allocate(fill);
    }
});

// St.BoxLayout has its own orientation from GNOME 48, where `vertical` is deprecated.
function vertical() {
    return GObject.Object.find_property.call(St.BoxLayout, 'orientation')
        ? {orientation: Clutter.Orientation.VERTICAL} : {vertical: true};
}

const ACTIONS = {
    pause: {method: 'RequestPause', icon: 'media-playback-pause-symbolic'},
    resume: {method: 'RequestResume', icon: 'media-playback-start-symbolic'},
    cancel: {method: 'RequestCancel', icon: 'process-stop-symbolic'},
};

// Not activatable: Enter on the row does nothing, the buttons in it act. Up and Down move
// between rows as in the shell's own menus; the buttons lie inside the row, where the
// focus manager's geometric search does not look, so Right (Left in a right-to-left
// locale) goes from the row to its first button and on, and back again.
export const TaskRow = GObject.registerClass(
class TaskRow extends PopupMenu.PopupBaseMenuItem {
    _init(request, words) {
        super._init({activate: false, style_class: 'progressd-row'});
        this._request = request;
        this._words = words;
        this._name = null;
        const column = new St.BoxLayout({x_expand: true, style_class: 'progressd-row-column', ...vertical()});
        this._title = plainLabel('progressd-row-title');
        this._bar = new TaskBar();
        this._status = plainLabel('progressd-row-status');
        column.add_child(this._title);
        column.add_child(this._bar);
        column.add_child(this._status);
        this.add_child(column);
        this._buttons = {};
        const box = new St.BoxLayout({style_class: 'progressd-row-actions', y_align: Clutter.ActorAlign.CENTER});
        for (const [action, {method, icon}] of Object.entries(ACTIONS)) {
            const button = new St.Button({
                style_class: 'button progressd-action',
                can_focus: true,
                child: new St.Icon({icon_name: icon, style_class: 'popup-menu-icon'}),
                accessible_role: Atk.Role.PUSH_BUTTON,
            });
            button.connect('key-press-event', (actor, event) => this._onButtonKey(actor, event));
            button.connect('clicked', () => {
                if (this._name !== null)
                    this._request(method, this._name);
            });
            box.add_child(button);
            this._buttons[action] = button;
        }
        this.add_child(box);
    }

    // The row and its buttons that can take the focus now, in reading order.
    _focusChain() {
        return [this, ...Object.values(this._buttons).filter(button => button.visible && button.can_focus)];
    }

    _step(symbol) {
        const rtl = this.get_text_direction() === Clutter.TextDirection.RTL;
        if (symbol === (rtl ? Clutter.KEY_Left : Clutter.KEY_Right))
            return 1;
        if (symbol === (rtl ? Clutter.KEY_Right : Clutter.KEY_Left))
            return -1;
        return 0;
    }

    _moveFocus(from, step) {
        const chain = this._focusChain();
        const next = chain[chain.indexOf(from) + step];
        if (!next)
            return false;
        next.grab_key_focus();
        return true;
    }

    // GNOME 43 and 44 hand the vfunc a ClutterKeyEvent struct (its keyval is the symbol),
    // 45 and later the Clutter.Event.
    vfunc_key_press_event(event) {
        const step = this._step(event.get_key_symbol?.() ?? event.keyval);
        if (step > 0 && this._moveFocus(this, step))
            return Clutter.EVENT_STOP;
        return super.vfunc_key_press_event(event);
    }

    _onButtonKey(button, event) {
        const step = this._step(event.get_key_symbol());
        if (step === 0)
            return Clutter.EVENT_PROPAGATE;
        this._moveFocus(button, step);
        return Clutter.EVENT_STOP;
    }

    update(row) {
        this._name = row.name;
        this._title.text = row.title;
        this._status.text = row.status;
        this._bar.update(row);
        this.accessible_name = `${row.title}, ${row.status}`;
        for (const [action, button] of Object.entries(this._buttons)) {
            button.visible = row.actions.includes(action);
            button.accessible_name = this._words.actionOn(this._words[action], row.title);
        }
        // A cancel already asked for: greyed, since asking again changes nothing.
        this._buttons.cancel.reactive = !row.cancelRequested;
        this._buttons.cancel.can_focus = !row.cancelRequested;
        if (row.cancelRequested)
            this._buttons.cancel.add_style_pseudo_class('insensitive');
        else
            this._buttons.cancel.remove_style_pseudo_class('insensitive');
    }
});
