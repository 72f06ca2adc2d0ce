//! One shared copy of the `clientInfo` and `capabilities` objects that many sessions send alike.
//!
//! A server holding many sessions keeps what each client sent at `initialize` for the life of
//! the session, and sessions from the same client software send the same objects. As
//! `serde_json` maps these cost hundreds of bytes each (dhat: 632 B for a two-field
//! `clientInfo`), about a sixth of an idle HTTP session. [`share`] hands out one `Arc` for equal
//! values seen recently, so those sessions hold one copy between them; the saved session state
//! (`transport::http::store`) holds the same `Arc`.
//!
//! The table is small and holds values weakly: it never keeps a value alive, a lookup compares
//! with at most [`SLOTS`] values, and values larger than [`MAX_SHARED_BYTES`] (estimated) are
//! not compared at all.

use serde_json::Value;
use std::sync::{Arc, Mutex, Weak};

/// How many distinct values are remembered.
const SLOTS: usize = 32;
/// Values whose JSON text would be longer than this (estimated) are never shared.
const MAX_SHARED_BYTES: usize = 4096;

struct Table {
    slots: Vec<Weak<Value>>,
    /// Where the next value goes when no slot is free.
    next: usize,
}

/// The values recently shared.
struct SharedValues(Mutex<Table>);

impl SharedValues {
    const fn new() -> Self {
        Self(Mutex::new(Table {
            slots: Vec::new(),
            next: 0,
        }))
    }

    fn share(&self, value: Value) -> Arc<Value> {
        if !is_small(&value, MAX_SHARED_BYTES) {
            return Arc::new(value);
        }
        let mut table = self.0.lock().unwrap_or_else(|e| e.into_inner());
        table.share(value)
    }
}

/// The process's table: equal values are equal whichever server or session received them.
static SHARED: SharedValues = SharedValues::new();

/// An `Arc` holding `value`: the one already shared by other sessions when an equal value was
/// seen recently, otherwise a new one (remembered for the next caller).
pub(crate) fn share(value: Value) -> Arc<Value> {
    SHARED.share(value)
}

impl Table {
    fn share(&mut self, value: Value) -> Arc<Value> {
        let mut free = None;
        for (i, slot) in self.slots.iter().enumerate() {
            match slot.upgrade() {
                Some(shared) if *shared == value => return shared,
                Some(_) => {}
                None => free = free.or(Some(i)),
            }
        }
        let shared = Arc::new(value);
        let weak = Arc::downgrade(&shared);
        if let Some(i) = free {
            self.slots[i] = weak;
        } else if self.slots.len() < SLOTS {
            self.slots.push(weak);
        } else {
            let i = self.next;
            self.slots[i] = weak;
            self.next = (i + 1) % SLOTS;
        }
        shared
    }
}

/// Whether `value`'s JSON text is at most about `budget` bytes, without writing it.
fn is_small(value: &Value, budget: usize) -> bool {
    fn size(value: &Value, left: &mut usize) -> bool {
        let cost = match value {
            Value::String(s) => s.len() + 2,
            Value::Array(items) => {
                if !spend(left, 2) {
                    return false;
                }
                return items.iter().all(|v| size(v, left));
            }
            Value::Object(map) => {
                if !spend(left, 2) {
                    return false;
                }
                return map
                    .iter()
                    .all(|(k, v)| spend(left, k.len() + 4) && size(v, left));
            }
            _ => 8,
        };
        spend(left, cost)
    }
    fn spend(left: &mut usize, cost: usize) -> bool {
        match left.checked_sub(cost) {
            Some(rest) => {
                *left = rest;
                true
            }
            None => false,
        }
    }
    let mut left = budget;
    size(value, &mut left)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn equal_values_share_one_copy_and_others_do_not() {
        let t = SharedValues::new();
        let share = |v| t.share(v);
        let a = share(json!({ "name": "shared-values-test", "version": "1" }));
        let b = share(json!({ "name": "shared-values-test", "version": "1" }));
        let c = share(json!({ "name": "shared-values-test", "version": "2" }));
        assert!(Arc::ptr_eq(&a, &b));
        assert!(!Arc::ptr_eq(&a, &c));
        assert_eq!(*c, json!({ "name": "shared-values-test", "version": "2" }));
    }

    #[test]
    fn the_table_keeps_nothing_alive() {
        let t = SharedValues::new();
        let share = |v| t.share(v);
        let a = share(json!({ "name": "shared-values-drop", "n": 1 }));
        let weak = Arc::downgrade(&a);
        drop(a);
        assert!(weak.upgrade().is_none());
        // Still works after the slot went dead: a new copy is made and shared again.
        let b = share(json!({ "name": "shared-values-drop", "n": 1 }));
        let c = share(json!({ "name": "shared-values-drop", "n": 1 }));
        assert!(Arc::ptr_eq(&b, &c));
    }

    #[test]
    fn large_values_are_not_compared_or_shared() {
        let t = SharedValues::new();
        let share = |v| t.share(v);
        let big = json!({ "blob": "x".repeat(MAX_SHARED_BYTES) });
        let a = share(big.clone());
        let b = share(big);
        assert!(!Arc::ptr_eq(&a, &b));
        assert!(is_small(&json!({ "a": [1, 2, "three"] }), 64));
        assert!(!is_small(&json!({ "a": "y".repeat(100) }), 64));
    }

    #[test]
    fn more_distinct_values_than_slots_still_give_equal_contents() {
        let t = SharedValues::new();
        let held: Vec<_> = (0..SLOTS * 2)
            .map(|i| t.share(json!({ "name": "many", "i": i })))
            .collect();
        for (i, v) in held.iter().enumerate() {
            assert_eq!(v["i"], i);
        }
        // The most recent ones are still remembered.
        let again = t.share(json!({ "name": "many", "i": SLOTS * 2 - 1 }));
        assert!(Arc::ptr_eq(&again, &held[SLOTS * 2 - 1]));
    }
}
