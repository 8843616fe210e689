// An ordered map whose versions share structure. insert_or_assign and erase leave the map they
// are called on untouched and return the next version in O(log n): only the nodes on the path
// to the key are copied, everything else is shared (a treap with path copying). The HTTP front's
// FleetSnapshot is built from these so that one node's change costs O(log n) rather than a
// rebuild of the fleet, while readers keep the version they started with (fleet_view.h).
//
// The shape of a treap is fixed by its keys and their priorities. Priorities are a hash of the
// key mixed with a per-process random seed: the same keys give the same tree however they got
// there, and keys chosen by a device cannot unbalance it on purpose.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <utility>
#include <vector>

namespace fleetmcp::http {

template <typename Key, typename Value, typename Less = std::less<>>
class PersistentMap {
  struct Node;
  using Ptr = std::shared_ptr<const Node>;
  struct Node {
    Key key;
    Value value;
    uint64_t priority;
    Ptr left, right;
  };

 public:
  // In-order (ascending key) iteration; valid while the map version it came from lives.
  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Value;
    using difference_type = std::ptrdiff_t;
    using pointer = const Value*;
    using reference = const Value&;

    const_iterator() = default;
    const Value& operator*() const { return path_.back()->value; }
    const Value* operator->() const { return &path_.back()->value; }
    const Key& key() const { return path_.back()->key; }
    const_iterator& operator++() {
      const Node* done = path_.back();
      path_.pop_back();
      push_left_spine(done->right.get());
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator before = *this;
      ++*this;
      return before;
    }
    bool operator==(const const_iterator& other) const {
      return path_.empty() ? other.path_.empty() : !other.path_.empty() && path_.back() == other.path_.back();
    }

   private:
    friend class PersistentMap;
    void push_left_spine(const Node* n) {
      for (; n != nullptr; n = n->left.get()) path_.push_back(n);
    }
    // The nodes still to visit whose left side is done, the next one last.
    std::vector<const Node*> path_;
  };

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  const_iterator begin() const {
    const_iterator it;
    it.push_left_spine(root_.get());
    return it;
  }
  const_iterator end() const { return {}; }

  // The first entry whose key is not less than `key` / greater than `key`.
  template <typename K>
  const_iterator lower_bound(const K& key) const {
    return bound(key, [](const Key& node_key, const K& k) { return !Less{}(node_key, k); });
  }
  template <typename K>
  const_iterator upper_bound(const K& key) const {
    return bound(key, [](const Key& node_key, const K& k) { return Less{}(k, node_key); });
  }

  // nullptr when absent.
  template <typename K>
  const Value* find(const K& key) const {
    const Node* n = root_.get();
    while (n != nullptr) {
      if (Less{}(key, n->key)) n = n->left.get();
      else if (Less{}(n->key, key)) n = n->right.get();
      else return &n->value;
    }
    return nullptr;
  }

  [[nodiscard]] PersistentMap insert_or_assign(Key key, Value value) const {
    PersistentMap next;
    if (find(key) != nullptr) {
      next.root_ = assign(root_, std::move(key), std::move(value));
      next.size_ = size_;
    } else {
      const uint64_t priority = priority_of(key);
      next.root_ = insert(root_, std::make_shared<const Node>(Node{std::move(key), std::move(value), priority, nullptr, nullptr}));
      next.size_ = size_ + 1;
    }
    return next;
  }

  [[nodiscard]] PersistentMap erase(const Key& key) const {
    if (find(key) == nullptr) return *this;
    PersistentMap next;
    next.root_ = erase(root_, key);
    next.size_ = size_ - 1;
    return next;
  }

 private:
  static uint64_t priority_of(const Key& key) {
    static const uint64_t seed = (static_cast<uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
    uint64_t z = static_cast<uint64_t>(std::hash<Key>{}(key)) ^ seed;  // then splitmix64's finaliser
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

  // A copy of `n` with other children: the one allocation a changed path costs per level.
  static Ptr with(const Node& n, Ptr left, Ptr right) {
    return std::make_shared<const Node>(Node{n.key, n.value, n.priority, std::move(left), std::move(right)});
  }

  template <typename K, typename GoesLeft>
  const_iterator bound(const K& key, GoesLeft goes_left) const {
    // Every node where the search turns left may be the answer; the last one pushed is.
    const_iterator it;
    for (const Node* n = root_.get(); n != nullptr;) {
      if (goes_left(n->key, key)) {
        it.path_.push_back(n);
        n = n->left.get();
      } else {
        n = n->right.get();
      }
    }
    return it;
  }

  // `key` is present in `t`. The new key replaces the equal old one: a key that is a view
  // (std::string_view) must point into the new value's storage, not the old one's.
  static Ptr assign(const Ptr& t, Key key, Value value) {
    if (Less{}(key, t->key)) return with(*t, assign(t->left, std::move(key), std::move(value)), t->right);
    if (Less{}(t->key, key)) return with(*t, t->left, assign(t->right, std::move(key), std::move(value)));
    return std::make_shared<const Node>(Node{std::move(key), std::move(value), t->priority, t->left, t->right});
  }

  // `fresh` holds a key absent from `t`.
  static Ptr insert(const Ptr& t, Ptr fresh) {
    if (!t) return fresh;
    if (fresh->priority > t->priority) {
      auto [left, right] = split(t, fresh->key);
      return with(*fresh, std::move(left), std::move(right));
    }
    if (Less{}(fresh->key, t->key)) return with(*t, insert(t->left, std::move(fresh)), t->right);
    return with(*t, t->left, insert(t->right, std::move(fresh)));
  }

  // The keys of `t` below `key` and above it (`key` itself is absent).
  static std::pair<Ptr, Ptr> split(const Ptr& t, const Key& key) {
    if (!t) return {};
    if (Less{}(t->key, key)) {
      auto [left, right] = split(t->right, key);
      return {with(*t, t->left, std::move(left)), std::move(right)};
    }
    auto [left, right] = split(t->left, key);
    return {std::move(left), with(*t, std::move(right), t->right)};
  }

  // `key` is present in `t`.
  static Ptr erase(const Ptr& t, const Key& key) {
    if (Less{}(key, t->key)) return with(*t, erase(t->left, key), t->right);
    if (Less{}(t->key, key)) return with(*t, t->left, erase(t->right, key));
    return merge(t->left, t->right);
  }

  // Every key of `a` is below every key of `b`.
  static Ptr merge(const Ptr& a, const Ptr& b) {
    if (!a) return b;
    if (!b) return a;
    if (a->priority > b->priority) return with(*a, a->left, merge(a->right, b));
    return with(*b, merge(a, b->left), b->right);
  }

  Ptr root_;
  size_t size_ = 0;
};

}  // namespace fleetmcp::http
