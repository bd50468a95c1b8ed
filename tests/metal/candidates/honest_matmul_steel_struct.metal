// Honest (must pass): MLX steel-style GEMM pieces: STEEL_CONST (`static constant constexpr const`) tile sizes in
// a struct, a BlockLoader template with const methods, a register tile struct with `thread` methods, an enum class
// for the edge case, STEEL_PRAGMA_UNROLL (_Pragma in a macro); 16x16 threads compute a 64x64 tile, 4x4 per thread.
// grid: 16 * ceil(n / 64), 16 * ceil(m / 64), 1
// threadgroup: 16, 16, 1
#define STEEL_CONST static constant constexpr const
#define STEEL_PRAGMA_UNROLL _Pragma("clang loop unroll(full)")

struct TileShape {
  STEEL_CONST int BM = 64;
  STEEL_CONST int BN = 64;
  STEEL_CONST int BK = 16;
  STEEL_CONST int TM = 4;
  STEEL_CONST int TN = 4;
  STEEL_CONST int kThreads = 256;
};

enum class Edge : int { inside, partial };

// Copies a ROWS x COLS block of a row-major matrix into threadgroup memory, zero outside the matrix.
template <int ROWS, int COLS, int PITCH>
struct BlockLoader {
  const device float* src;
  int src_rows, src_cols, src_ld;
  threadgroup float* dst;
  METAL_FUNC void load(int row0, int col0, uint lid, Edge edge) const {
    for (int e = int(lid); e < ROWS * COLS; e += TileShape::kThreads) {
      int r = e / COLS, c = e % COLS;
      bool inside = edge == Edge::inside || (row0 + r < src_rows && col0 + c < src_cols);
      dst[r * PITCH + c] = inside ? src[size_t(row0 + r) * src_ld + col0 + c] : 0.0f;
    }
  }
};

struct RegisterTile {
  float v[TileShape::TM][TileShape::TN];
  METAL_FUNC void clear() thread {
    STEEL_PRAGMA_UNROLL
    for (int i = 0; i < TileShape::TM; ++i)
      STEEL_PRAGMA_UNROLL
      for (int j = 0; j < TileShape::TN; ++j) v[i][j] = 0.0f;
  }
  // One k step: rows of the A tile times columns of the B tile.
  METAL_FUNC void mma(const threadgroup float* a, const threadgroup float* b, int ty, int tx) thread {
    for (int kk = 0; kk < TileShape::BK; ++kk) {
      float a_col[TileShape::TM], b_row[TileShape::TN];
      STEEL_PRAGMA_UNROLL
      for (int i = 0; i < TileShape::TM; ++i) a_col[i] = a[(ty * TileShape::TM + i) * (TileShape::BK + 1) + kk];
      STEEL_PRAGMA_UNROLL
      for (int j = 0; j < TileShape::TN; ++j) b_row[j] = b[kk * TileShape::BN + tx * TileShape::TN + j];
      STEEL_PRAGMA_UNROLL
      for (int i = 0; i < TileShape::TM; ++i)
        STEEL_PRAGMA_UNROLL
        for (int j = 0; j < TileShape::TN; ++j) v[i][j] = fma(a_col[i], b_row[j], v[i][j]);
    }
  }
};
// --- body ---
threadgroup float a_tile[TileShape::BM * (TileShape::BK + 1)];
threadgroup float b_tile[TileShape::BK * TileShape::BN];
uint3 tid = thread_position_in_threadgroup;
uint lid = tid.y * 16 + tid.x;
int row0 = int(threadgroup_position_in_grid.y) * TileShape::BM;
int col0 = int(threadgroup_position_in_grid.x) * TileShape::BN;
const BlockLoader<TileShape::BM, TileShape::BK, TileShape::BK + 1> a_loader{A, m, k, k, a_tile};
const BlockLoader<TileShape::BK, TileShape::BN, TileShape::BN> b_loader{B, k, n, n, b_tile};
RegisterTile acc;
acc.clear();
for (int k0 = 0; k0 < k; k0 += TileShape::BK) {
  Edge edge = (row0 + TileShape::BM <= m && col0 + TileShape::BN <= n && k0 + TileShape::BK <= k) ? Edge::inside : Edge::partial;
  a_loader.load(row0, k0, lid, edge);
  b_loader.load(k0, col0, lid, edge);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  acc.mma(a_tile, b_tile, int(tid.y), int(tid.x));
  threadgroup_barrier(mem_flags::mem_threadgroup);
}
STEEL_PRAGMA_UNROLL
for (int i = 0; i < TileShape::TM; ++i) {
  int r = row0 + int(tid.y) * TileShape::TM + i;
  STEEL_PRAGMA_UNROLL
  for (int j = 0; j < TileShape::TN; ++j) {
    int c = col0 + int(tid.x) * TileShape::TN + j;
    if (r < m && c < n) C[size_t(r) * n + c] = acc.v[i][j];
  }
}
