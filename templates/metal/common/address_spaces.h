// Address-space-preserving casts shared by the metal template families and the CUDA -> Metal translator (which
// embeds this file and emits the section below into a translation that needs it).
#pragma once
// helper: ks_ro_cast
// A cast of a read-only pointer that keeps its address space: MLX passes an input of fewer than 8 elements in
// constant memory and larger ones in device memory, and Metal casts no pointer from one to the other. (One primary
// template and specializations by constness, not an overload per space: they stay distinct where spaces are erased.)
template <typename P, typename T> struct ks_ro_pointer {
  typedef const constant T* type;
};
template <typename U, typename T> struct ks_ro_pointer<const device U*, T> {
  typedef const device T* type;
};
template <typename U, typename T> struct ks_ro_pointer<device U*, T> {
  typedef const device T* type;
};
template <typename T, typename P> inline typename ks_ro_pointer<P, T>::type ks_ro_cast(P p) {
  return reinterpret_cast<typename ks_ro_pointer<P, T>::type>(p);
}
