/* Context id uniqueness: communicators created in loops (dup/free cycles, split of split, concurrent
 * create_group over overlapping groups with different tags, concurrent idups, disjoint halves dup'ing
 * at the same time), then message isolation: a receive posted on communicator k with MPI_ANY_SOURCE and
 * MPI_ANY_TAG must get the message sent on k, however the sends on all the others are ordered. */
#include "check.h"

#define MAX_COMMS 128

static int world_size;
static MPI_Comm comms[MAX_COMMS];
static int labels[MAX_COMMS];  /* the same on every member of a communicator */
static int ncomms = 0;

static void keep(MPI_Comm c, int label) {
  if (c == MPI_COMM_NULL) return;
  if (ncomms == MAX_COMMS) MPI_Abort(MPI_COMM_WORLD, 3);
  labels[ncomms] = label;
  comms[ncomms++] = c;
}

/* On every kept communicator, each rank receives from its left neighbour (ANY_SOURCE, ANY_TAG) and
 * sends (label, its world rank) to its right neighbour, the sends in reverse order of the receives. */
static void check_isolation(void) {
  int* got = malloc(sizeof(int) * 2 * (size_t)ncomms);
  int* sent = malloc(sizeof(int) * 2 * (size_t)ncomms);
  MPI_Request* reqs = malloc(sizeof(MPI_Request) * 2 * (size_t)ncomms);
  MPI_Status* st = malloc(sizeof(MPI_Status) * 2 * (size_t)ncomms);
  int* left_world = malloc(sizeof(int) * (size_t)ncomms);
  for (int k = 0; k < ncomms; ++k) {
    int size, rank;
    MPI_OK(MPI_Comm_size(comms[k], &size));
    MPI_OK(MPI_Comm_rank(comms[k], &rank));
    int members[256];
    world_ranks_of(comms[k], members);
    left_world[k] = members[(rank + size - 1) % size];
    MPI_OK(MPI_Irecv(&got[2 * k], 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comms[k], &reqs[k]));
  }
  for (int k = ncomms - 1; k >= 0; --k) {
    int size, rank;
    MPI_OK(MPI_Comm_size(comms[k], &size));
    MPI_OK(MPI_Comm_rank(comms[k], &rank));
    sent[2 * k] = labels[k];
    sent[2 * k + 1] = g_world_rank;
    MPI_OK(MPI_Isend(&sent[2 * k], 2, MPI_INT, (rank + 1) % size, labels[k] % 3, comms[k], &reqs[ncomms + k]));
  }
  MPI_OK(MPI_Waitall(2 * ncomms, reqs, st));
  for (int k = 0; k < ncomms; ++k) {
    CHECK(got[2 * k] == labels[k]);
    CHECK(got[2 * k + 1] == left_world[k]);
    CHECK(st[k].MPI_TAG == labels[k] % 3);
  }
  free(got);
  free(sent);
  free(reqs);
  free(st);
  free(left_world);
}

static void free_all(void) {
  for (int k = 0; k < ncomms; ++k) MPI_OK(MPI_Comm_free(&comms[k]));
  ncomms = 0;
}

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &g_world_rank));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &world_size));
  if (world_size > 256) MPI_Abort(MPI_COMM_WORLD, 2);
  const int iterations = world_size > 8 ? 20 : 100;

  /* dup/free cycles: ids come back and are reused, each communicator works. */
  for (int i = 0; i < iterations; ++i) {
    MPI_Comm c;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    if (i % 10 == 0) check_comm_carries(c, i);
    MPI_OK(MPI_Comm_free(&c));
  }

  for (int round = 0; round < 2; ++round) {
    /* Dups of world and of dups. */
    MPI_Comm d;
    const int base = (round + 1) * 10000;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    keep(d, base);
    for (int i = 0; i < 5; ++i) {
      MPI_OK(MPI_Comm_dup(comms[ncomms - 1], &d));
      keep(d, base + 1 + i);
    }

    /* Split of split of split. */
    MPI_Comm s1, s2, s3;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, g_world_rank % 2, g_world_rank, &s1));
    int r1;
    MPI_OK(MPI_Comm_rank(s1, &r1));
    MPI_OK(MPI_Comm_split(s1, r1 % 2, -r1, &s2));
    int r2;
    MPI_OK(MPI_Comm_rank(s2, &r2));
    MPI_OK(MPI_Comm_split(s2, 0, r2, &s3));
    keep(s1, base + 100 + g_world_rank % 2);
    keep(s2, base + 200 + (g_world_rank % 2) * 2 + r1 % 2);
    keep(s3, base + 300 + (g_world_rank % 2) * 2 + r1 % 2);

    /* Disjoint halves dup at the same time: same ids on both sides is fine, no mixing. */
    MPI_Comm h1, h2;
    MPI_OK(MPI_Comm_dup(s1, &h1));
    MPI_OK(MPI_Comm_dup(s1, &h2));
    keep(h1, base + 400 + g_world_rank % 2);
    keep(h2, base + 500 + g_world_rank % 2);

    /* Overlapping windows {w, w+1, w+2} (mod n) created with create_group, each with its own tag;
     * every process runs its windows in increasing w, so neighbouring windows run concurrently. */
    if (world_size >= 3) {
      MPI_Group world_group;
      MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
      for (int w = 0; w < world_size; ++w) {
        int members[3] = {w, (w + 1) % world_size, (w + 2) % world_size};
        if (members[0] != g_world_rank && members[1] != g_world_rank && members[2] != g_world_rank) continue;
        MPI_Group g;
        MPI_OK(MPI_Group_incl(world_group, 3, members, &g));
        MPI_Comm c;
        MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, g, 1000 + w, &c));
        int size;
        MPI_OK(MPI_Comm_size(c, &size));
        CHECK(size == 3);
        keep(c, base + 1000 + w);
        MPI_OK(MPI_Group_free(&g));
      }
      /* Same windows, one tag for all: consistent order keeps them apart too. */
      for (int w = 0; w < world_size; ++w) {
        int members[3] = {w, (w + 1) % world_size, (w + 2) % world_size};
        if (members[0] != g_world_rank && members[1] != g_world_rank && members[2] != g_world_rank) continue;
        MPI_Group g;
        MPI_OK(MPI_Group_incl(world_group, 3, members, &g));
        MPI_Comm c;
        MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, g, 7, &c));
        keep(c, base + 2000 + w);
        MPI_OK(MPI_Group_free(&g));
      }
      MPI_OK(MPI_Group_free(&world_group));
    }

    /* Concurrent idups on overlapping communicators. */
    MPI_Request reqs[3];
    MPI_Status st[3];
    MPI_Comm i1, i2, i3;
    MPI_OK(MPI_Comm_idup(s1, &i1, &reqs[0]));
    MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &i2, &reqs[1]));
    MPI_OK(MPI_Comm_idup(s2, &i3, &reqs[2]));
    MPI_OK(MPI_Waitall(3, reqs, st));
    keep(i1, base + 600 + g_world_rank % 2);
    keep(i2, base + 700);
    keep(i3, base + 800 + (g_world_rank % 2) * 2 + r1 % 2);

    check_isolation();
    /* Free half and go again: freed ids are reused by the next round. */
    if (round == 0) {
      /* (labels are even or odd alike on all members, so members free the same ones) */
      for (int k = 0; k < ncomms; ++k)
        if (labels[k] % 2 == 0) MPI_OK(MPI_Comm_free(&comms[k]));
      int kept = 0;
      for (int k = 0; k < ncomms; ++k)
        if (comms[k] != MPI_COMM_NULL) {
          labels[kept] = labels[k];
          comms[kept++] = comms[k];
        }
      ncomms = kept;
    }
  }
  check_isolation();
  free_all();
  return finish_test("comm_stress");
}
