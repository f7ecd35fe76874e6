// The demo library's built-in catalog: public-domain audiobooks in the LibriVox style and a few ebooks, in the
// format `DemoCatalog.load(from:)` reads. It lives in the program rather than in a resource bundle, so an installed
// shelf-demo-library works wherever it is copied (a bundle stays in the build folder).

extension DemoCatalog {
    static let builtInJSON = #"""
[
  {
    "id": "urn:uuid:7d3c0001-5a1e-4c6b-9f0e-d0c5e1f00001",
    "title": "Pride and Prejudice",
    "authors": [
      "Jane Austen"
    ],
    "narrators": [
      "Rosalind Hale"
    ],
    "summary": "<p>Elizabeth Bennet meets the proud Mr. Darcy at a country ball, and neither is impressed. A comedy of manners about first impressions, family embarrassment and the slow business of changing one's mind.</p>",
    "publisher": "LibriVox",
    "issued": "1813-01-28",
    "language": "en",
    "categories": [
      "Classics",
      "Romance"
    ],
    "audience": "Adult",
    "distributor": "LibriVox",
    "medium": "audiobook",
    "duration": 43380.0,
    "published": "2024-02-03T00:00:00Z",
    "updated": "2024-02-03T10:15:00Z",
    "license": {
      "openAccess": true
    }
  },
  {
    "id": "urn:uuid:7d3c0002-5a1e-4c6b-9f0e-d0c5e1f00002",
    "title": "The Adventures of Sherlock Holmes",
    "authors": [
      "Arthur Conan Doyle"
    ],
    "narrators": [
      "Thomas Whitcombe"
    ],
    "summary": "<p>Twelve cases for the consulting detective of Baker Street, from <i>A Scandal in Bohemia</i> to <i>The Adventure of the Copper Beeches</i>, narrated by his friend Dr. Watson.</p>",
    "publisher": "Palace Demo Audio",
    "issued": "1892-10-14",
    "language": "en",
    "categories": [
      "Mystery",
      "Short Stories"
    ],
    "audience": "Adult",
    "distributor": "Palace Marketplace",
    "medium": "audiobook",
    "duration": 37080.0,
    "series": { "name": "Sherlock Holmes", "position": "3" },
    "published": "2024-03-11T00:00:00Z",
    "updated": "2024-03-11T08:00:00Z",
    "license": {
      "copiesTotal": 3,
      "copiesAvailable": 2,
      "holdsTotal": 0
    }
  },
  {
    "id": "urn:uuid:7d3c0003-5a1e-4c6b-9f0e-d0c5e1f00003",
    "title": "Frankenstein",
    "subtitle": "or, The Modern Prometheus",
    "authors": [
      "Mary Wollstonecraft Shelley"
    ],
    "summary": "<p>Victor Frankenstein builds a living being from the dead and abandons it on the night it wakes. A novel of ambition & its price, told in letters from the Arctic ice.</p>",
    "publisher": "Palace Demo Editions",
    "issued": "1818-01-01",
    "language": "en",
    "categories": [
      "Horror",
      "Science Fiction"
    ],
    "audience": "Adult",
    "distributor": "Palace Marketplace",
    "medium": "ebook",
    "published": "2024-01-19T00:00:00Z",
    "updated": "2024-01-19T14:30:00Z",
    "license": {
      "copiesTotal": 2,
      "copiesAvailable": 1,
      "holdsTotal": 0
    }
  },
  {
    "id": "urn:uuid:7d3c0004-5a1e-4c6b-9f0e-d0c5e1f00004",
    "title": "Moby Dick",
    "subtitle": "or, The Whale",
    "authors": [
      "Herman Melville"
    ],
    "narrators": [
      "Jonah Brightwell"
    ],
    "summary": "<p>Ishmael signs on to the whaler <i>Pequod</i> and learns too late that Captain Ahab means to hunt one white whale to the ends of the earth.</p>",
    "publisher": "Palace Demo Audio",
    "issued": "1851-10-18",
    "language": "en",
    "categories": [
      "Adventure",
      "Classics"
    ],
    "audience": "Adult",
    "distributor": "Palace Marketplace",
    "medium": "audiobook",
    "duration": 79200.0,
    "published": "2024-02-27T00:00:00Z",
    "updated": "2024-02-27T16:45:00Z",
    "license": {
      "copiesTotal": 1,
      "copiesAvailable": 0,
      "holdsTotal": 3
    }
  },
  {
    "id": "urn:uuid:7d3c0005-5a1e-4c6b-9f0e-d0c5e1f00005",
    "title": "A Christmas Carol",
    "authors": [
      "Charles Dickens"
    ],
    "narrators": [
      "Margaret Ellery"
    ],
    "summary": "<p>Ebenezer Scrooge is visited by the ghost of his partner Marley and by three spirits who show him Christmases past, present and yet to come.</p>",
    "publisher": "LibriVox",
    "issued": "1843-12-19",
    "language": "en",
    "categories": [
      "Classics",
      "Fantasy"
    ],
    "audience": "Adult",
    "distributor": "LibriVox",
    "medium": "audiobook",
    "duration": 11100.0,
    "published": "2023-12-20T00:00:00Z",
    "updated": "2023-12-20T09:00:00Z",
    "license": {
      "openAccess": true
    }
  },
  {
    "id": "urn:uuid:7d3c0006-5a1e-4c6b-9f0e-d0c5e1f00006",
    "title": "The Time Machine",
    "authors": [
      "H. G. Wells"
    ],
    "narrators": [
      "Peter Ashdown"
    ],
    "summary": "<p>A Victorian inventor travels to the year 802,701 and finds humanity divided into the gentle Eloi and the subterranean Morlocks.</p>",
    "publisher": "LibriVox",
    "issued": "1895-05-07",
    "language": "en",
    "categories": [
      "Science Fiction"
    ],
    "audience": "Adult",
    "distributor": "LibriVox",
    "medium": "audiobook",
    "duration": 12600.0,
    "published": "2024-01-08T00:00:00Z",
    "updated": "2024-01-08T12:00:00Z",
    "license": {
      "openAccess": true
    }
  },
  {
    "id": "urn:uuid:7d3c0007-5a1e-4c6b-9f0e-d0c5e1f00007",
    "title": "Little Women",
    "authors": [
      "Louisa May Alcott"
    ],
    "summary": "<p>Meg, Jo, Beth and Amy March grow up in Concord while their father is away at war: theatricals, quarrels, scarlet fever and the first stirrings of independence.</p>",
    "publisher": "Standard Ebooks",
    "issued": "1868-09-30",
    "language": "en",
    "categories": [
      "Classics",
      "Historical Fiction"
    ],
    "audience": "Young Adult",
    "distributor": "Standard Ebooks",
    "medium": "ebook",
    "published": "2024-03-02T00:00:00Z",
    "updated": "2024-03-02T11:20:00Z",
    "license": {
      "openAccess": true
    }
  },
  {
    "id": "urn:uuid:7d3c0008-5a1e-4c6b-9f0e-d0c5e1f00008",
    "title": "The Count of Monte Cristo",
    "authors": [
      "Alexandre Dumas"
    ],
    "narrators": [
      "Claude Marchetti"
    ],
    "summary": "<p>Edmond Dantès is betrayed on his wedding day and imprisoned in the Château d'If. Fourteen years later he escapes, finds a fortune, and begins a patient and terrible revenge.</p>",
    "publisher": "Palace Demo Audio",
    "issued": "1844-08-28",
    "language": "en",
    "categories": [
      "Adventure",
      "Historical Fiction"
    ],
    "audience": "Adult",
    "distributor": "Palace Marketplace",
    "medium": "audiobook",
    "duration": 190800.0,
    "published": "2024-03-15T00:00:00Z",
    "updated": "2024-03-15T19:10:00Z",
    "license": {
      "copiesTotal": 2,
      "copiesAvailable": 0,
      "holdsTotal": 5
    }
  },
  {
    "id": "urn:uuid:7d3c0009-5a1e-4c6b-9f0e-d0c5e1f00009",
    "title": "Dracula",
    "authors": [
      "Bram Stoker"
    ],
    "narrators": [
      "Agnes Thornbury",
      "Walter Kemble"
    ],
    "summary": "<p>Jonathan Harker travels to Transylvania to sell an English house to a nobleman who never eats and casts no reflection. Told in journals, letters and phonograph recordings.</p>",
    "publisher": "LibriVox",
    "issued": "1897-05-26",
    "language": "en",
    "categories": [
      "Horror",
      "Classics"
    ],
    "audience": "Adult",
    "distributor": "LibriVox",
    "medium": "audiobook",
    "duration": 55800.0,
    "published": "2023-10-31T00:00:00Z",
    "updated": "2023-10-31T23:00:00Z",
    "license": {
      "openAccess": true
    }
  },
  {
    "id": "urn:uuid:7d3c000a-5a1e-4c6b-9f0e-d0c5e1f0000a",
    "title": "The Secret Garden",
    "authors": [
      "Frances Hodgson Burnett"
    ],
    "narrators": [
      "Hannah Birch"
    ],
    "summary": "<p>Orphaned Mary Lennox comes to a lonely Yorkshire manor, finds the key to a locked garden, and with her sickly cousin Colin brings it, and themselves, back to life.</p>",
    "publisher": "Palace Demo Audio",
    "issued": "1911-08-01",
    "language": "en",
    "categories": [
      "Classics"
    ],
    "audience": "Children",
    "distributor": "Palace Marketplace",
    "medium": "audiobook",
    "duration": 27600.0,
    "published": "2024-02-14T00:00:00Z",
    "updated": "2024-02-14T07:30:00Z",
    "license": {
      "copiesTotal": 4,
      "copiesAvailable": 3,
      "holdsTotal": 0
    }
  },
  {
    "id": "urn:uuid:7d3c000b-5a1e-4c6b-9f0e-d0c5e1f0000b",
    "title": "Meditations",
    "authors": [
      "Marcus Aurelius"
    ],
    "summary": "<p>The private notebooks of a Roman emperor, written on campaign: short reflections on duty, impermanence and how to stay good-tempered among difficult people.</p>",
    "publisher": "Standard Ebooks",
    "issued": "0180-01-01",
    "language": "en",
    "categories": [
      "Philosophy"
    ],
    "audience": "Adult",
    "distributor": "Standard Ebooks",
    "medium": "ebook",
    "published": "2024-01-02T00:00:00Z",
    "updated": "2024-01-02T06:00:00Z",
    "license": {
      "openAccess": true
    }
  },
  {
    "id": "urn:uuid:7d3c000c-5a1e-4c6b-9f0e-d0c5e1f0000c",
    "title": "The War of the Worlds",
    "authors": [
      "H. G. Wells"
    ],
    "narrators": [
      "Peter Ashdown"
    ],
    "summary": "<p>Cylinders fall on the commons of Surrey, and the Martians inside them set out across England in fighting machines armed with heat-rays and black smoke.</p>",
    "publisher": "Palace Demo Audio",
    "issued": "1898-01-01",
    "language": "en",
    "categories": [
      "Science Fiction"
    ],
    "audience": "Adult",
    "distributor": "Palace Marketplace",
    "medium": "audiobook",
    "duration": 21600.0,
    "published": "2024-03-20T00:00:00Z",
    "updated": "2024-03-20T13:05:00Z",
    "license": {
      "copiesTotal": 2,
      "copiesAvailable": 1,
      "holdsTotal": 0
    }
  },
  {
    "id": "urn:uuid:7d3c000d-5a1e-4c6b-9f0e-d0c5e1f0000d",
    "title": "Anne of Green Gables",
    "authors": [
      "L. M. Montgomery"
    ],
    "narrators": [
      "Rosalind Hale"
    ],
    "summary": "<p>The Cuthberts asked for an orphan boy to help on the farm and got Anne Shirley, red-haired, talkative and impossible to send back.</p>",
    "publisher": "LibriVox",
    "issued": "1908-06-13",
    "language": "en",
    "categories": [
      "Classics"
    ],
    "audience": "Young Adult",
    "distributor": "LibriVox",
    "medium": "audiobook",
    "duration": 36000.0,
    "published": "2024-02-22T00:00:00Z",
    "updated": "2024-02-22T15:40:00Z",
    "license": {
      "openAccess": true
    }
  },
  {
    "id": "urn:uuid:7d3c000e-5a1e-4c6b-9f0e-d0c5e1f0000e",
    "title": "Middlemarch",
    "subtitle": "A Study of Provincial Life",
    "authors": [
      "George Eliot"
    ],
    "summary": "<p>Dorothea Brooke marries the dry scholar Casaubon, and the whole provincial town of Middlemarch turns around her choices in a study of marriage, reform and ambition.</p>",
    "publisher": "Palace Demo Editions",
    "issued": "1871-12-01",
    "language": "en",
    "categories": [
      "Classics",
      "Historical Fiction"
    ],
    "audience": "Adult",
    "distributor": "Palace Marketplace",
    "medium": "ebook",
    "published": "2024-01-30T00:00:00Z",
    "updated": "2024-01-30T10:10:00Z",
    "license": {
      "copiesTotal": 1,
      "copiesAvailable": 0,
      "holdsTotal": 2
    }
  },
  {
    "id": "urn:uuid:7d3c000f-5a1e-4c6b-9f0e-d0c5e1f0000f",
    "title": "The Call of the Wild",
    "authors": [
      "Jack London"
    ],
    "narrators": [
      "Samuel Drake"
    ],
    "summary": "<p>Buck, a pampered dog from a California estate, is stolen and sold as a sled dog in the Klondike gold rush, where he learns the law of club and fang.</p>",
    "publisher": "LibriVox",
    "issued": "1903-07-01",
    "language": "en",
    "categories": [
      "Adventure"
    ],
    "audience": "Adult",
    "distributor": "LibriVox",
    "medium": "audiobook",
    "duration": 11400.0,
    "published": "2023-11-18T00:00:00Z",
    "updated": "2023-11-18T08:25:00Z",
    "license": {
      "openAccess": true
    }
  },
  {
    "id": "urn:uuid:7d3c0010-5a1e-4c6b-9f0e-d0c5e1f00010",
    "title": "Jane Eyre",
    "subtitle": "An Autobiography",
    "authors": [
      "Charlotte Brontë"
    ],
    "narrators": [
      "Margaret Ellery"
    ],
    "summary": "<p>A plain, proud governess falls in love with her employer at Thornfield Hall and discovers what is locked in the attic.</p>",
    "publisher": "Palace Demo Audio",
    "issued": "1847-10-16",
    "language": "en",
    "categories": [
      "Classics",
      "Romance"
    ],
    "audience": "Adult",
    "distributor": "Palace Marketplace",
    "medium": "audiobook",
    "duration": 68400.0,
    "published": "2024-03-05T00:00:00Z",
    "updated": "2024-03-05T17:55:00Z",
    "license": {
      "copiesTotal": 3,
      "copiesAvailable": 3,
      "holdsTotal": 0
    }
  },
  {
    "id": "urn:uuid:7d3c0011-5a1e-4c6b-9f0e-d0c5e1f00011",
    "title": "The Wonderful Wizard of Oz",
    "authors": [
      "L. Frank Baum"
    ],
    "narrators": [
      "Hannah Birch"
    ],
    "summary": "<p>A cyclone carries Dorothy from Kansas to the land of Oz, where she follows the yellow brick road with a Scarecrow, a Tin Woodman and a Cowardly Lion.</p>",
    "publisher": "LibriVox",
    "issued": "1900-05-17",
    "language": "en",
    "categories": [
      "Fantasy"
    ],
    "audience": "Children",
    "distributor": "LibriVox",
    "medium": "audiobook",
    "duration": 14400.0,
    "published": "2024-01-25T00:00:00Z",
    "updated": "2024-01-25T09:45:00Z",
    "license": {
      "openAccess": true
    }
  },
  {
    "id": "urn:uuid:7d3c0012-5a1e-4c6b-9f0e-d0c5e1f00012",
    "title": "Les Misérables",
    "authors": [
      "Victor Hugo"
    ],
    "summary": "<p>L'ancien forçat Jean Valjean, poursuivi par l'inspecteur Javert, traverse trente ans de l'histoire de France.</p>",
    "publisher": "Wikisource",
    "issued": "1862-04-03",
    "language": "fr",
    "categories": [
      "Classics",
      "Historical Fiction"
    ],
    "audience": "Adult",
    "distributor": "Standard Ebooks",
    "medium": "ebook",
    "published": "2024-02-09T00:00:00Z",
    "updated": "2024-02-09T12:30:00Z",
    "license": {
      "openAccess": true
    }
  },
  {
    "id": "urn:uuid:7d3c0013-5a1e-4c6b-9f0e-d0c5e1f00013",
    "title": "The Picture of Dorian Gray",
    "authors": [
      "Oscar Wilde"
    ],
    "narrators": [
      "Full Cast"
    ],
    "summary": "<p>A handsome young man wishes that his portrait would age instead of him, and the wish is granted. Forthcoming in a new full-cast recording.</p>",
    "publisher": "Palace Demo Audio",
    "issued": "1890-06-20",
    "language": "en",
    "categories": [
      "Classics",
      "Horror"
    ],
    "audience": "Adult",
    "distributor": "Palace Marketplace",
    "medium": "audiobook",
    "duration": 30600.0,
    "published": "2024-03-22T00:00:00Z",
    "updated": "2024-03-22T18:00:00Z",
    "license": {
      "copiesTotal": 1,
      "copiesAvailable": 1,
      "holdsTotal": 0
    },
    "draft": true
  },
  {
    "id": "urn:uuid:7d3c0014-5a1e-4c6b-9f0e-d0c5e1f00014",
    "title": "The Hound of the Baskervilles",
    "authors": [
      "Arthur Conan Doyle"
    ],
    "narrators": [
      "Thomas Whitcombe"
    ],
    "summary": "<p>A family curse, a fog-bound moor and the footprints of a gigantic hound: Holmes sends Watson to Dartmoor ahead of him. A new studio recording offered for purchase.</p>",
    "publisher": "Palace Demo Audio",
    "issued": "1902-04-01",
    "language": "en",
    "categories": [
      "Mystery"
    ],
    "audience": "Adult",
    "distributor": "Palace Marketplace",
    "medium": "audiobook",
    "duration": 22320.0,
    "series": { "name": "Sherlock Holmes", "position": "5" },
    "published": "2024-03-18T00:00:00Z",
    "updated": "2024-03-18T14:00:00Z",
    "license": {
      "copiesTotal": 1,
      "copiesAvailable": 1,
      "holdsTotal": 0
    },
    "price": {
      "amount": "4.99",
      "currency": "USD"
    }
  },
  {
    "id": "urn:uuid:7d3c0015-5a1e-4c6b-9f0e-d0c5e1f00015",
    "title": "Walden",
    "subtitle": "or, Life in the Woods",
    "authors": [
      "Henry David Thoreau"
    ],
    "narrators": [
      "Samuel Drake"
    ],
    "summary": "<p>Two years, two months and two days in a cabin by Walden Pond: an experiment in simple living, with chapters on economy, solitude, beans and the ice harvest.</p>",
    "publisher": "LibriVox",
    "issued": "1854-08-09",
    "language": "en",
    "categories": [
      "Philosophy",
      "Biography & Memoir"
    ],
    "audience": "Adult",
    "distributor": "LibriVox",
    "medium": "audiobook",
    "duration": 45000.0,
    "published": "2023-09-14T00:00:00Z",
    "updated": "2023-09-14T07:00:00Z",
    "license": {
      "openAccess": true
    }
  },
  {
    "id": "urn:uuid:7d3c0016-5a1e-4c6b-9f0e-d0c5e1f00016",
    "title": "The Importance of Being Earnest",
    "subtitle": "A Trivial Comedy for Serious People",
    "authors": [
      "Oscar Wilde"
    ],
    "narrators": [
      "Full Cast"
    ],
    "summary": "<p>Jack Worthing is Ernest in town and Jack in the country; Algernon invents an invalid friend called Bunbury. A trivial comedy for serious people, performed by a full cast.</p>",
    "publisher": "Palace Demo Audio",
    "issued": "1895-02-14",
    "language": "en",
    "categories": [
      "Humor",
      "Classics"
    ],
    "audience": "Adult",
    "distributor": "Palace Marketplace",
    "medium": "audiobook",
    "duration": 7800.0,
    "published": "2024-02-18T00:00:00Z",
    "updated": "2024-02-18T20:20:00Z",
    "license": {
      "copiesTotal": 2,
      "copiesAvailable": 2,
      "holdsTotal": 0
    }
  },
  {
    "id": "urn:uuid:7d3c0017-5a1e-4c6b-9f0e-d0c5e1f00017",
    "title": "Treasure Island",
    "authors": [
      "Robert Louis Stevenson"
    ],
    "narrators": [
      "Jonah Brightwell"
    ],
    "summary": "<p>Young Jim Hawkins finds a map in a dead pirate's sea chest and sails for a treasure island with a crew that includes the one-legged cook Long John Silver.</p>",
    "publisher": "LibriVox",
    "issued": "1883-11-14",
    "language": "en",
    "categories": [
      "Adventure"
    ],
    "audience": "Young Adult",
    "distributor": "LibriVox",
    "medium": "audiobook",
    "duration": 25200.0,
    "published": "2024-01-12T00:00:00Z",
    "updated": "2024-01-12T16:00:00Z",
    "license": {
      "openAccess": true
    }
  },
  {
    "id": "urn:uuid:7d3c0018-5a1e-4c6b-9f0e-d0c5e1f00018",
    "title": "Alice's Adventures in Wonderland",
    "authors": [
      "Lewis Carroll"
    ],
    "narrators": [
      "Rosalind Hale"
    ],
    "summary": "<p>Alice follows a white rabbit down a hole into a country where nothing keeps its size for long. One m4b file with its chapters inside, offered as a plain download.</p>",
    "publisher": "Shelf Demo Files",
    "issued": "1865-11-26",
    "language": "en",
    "categories": [
      "Fantasy",
      "Classics"
    ],
    "audience": "Children",
    "distributor": "Shelf Demo Files",
    "medium": "audiobook",
    "duration": 6.0,
    "published": "2024-04-01T00:00:00Z",
    "updated": "2024-04-01T09:00:00Z",
    "license": {
      "openAccess": true
    },
    "singleFile": {
      "format": "m4b",
      "chapters": [
        "Down the Rabbit-Hole",
        "The Pool of Tears",
        "A Caucus-Race and a Long Tale"
      ],
      "chapterSeconds": 2
    }
  },
  {
    "id": "urn:uuid:7d3c0019-5a1e-4c6b-9f0e-d0c5e1f00019",
    "title": "The Jungle Book",
    "authors": [
      "Rudyard Kipling"
    ],
    "narrators": [
      "Thomas Whitcombe"
    ],
    "summary": "<p>Mowgli, raised by wolves, learns the Law of the Jungle from Baloo and Bagheera. One mp3 file with ID3 chapters, offered as a plain download.</p>",
    "publisher": "Shelf Demo Files",
    "issued": "1894-05-01",
    "language": "en",
    "categories": [
      "Adventure",
      "Short Stories"
    ],
    "audience": "Children",
    "distributor": "Shelf Demo Files",
    "medium": "audiobook",
    "duration": 6.0,
    "published": "2024-04-02T00:00:00Z",
    "updated": "2024-04-02T09:00:00Z",
    "license": {
      "openAccess": true
    },
    "singleFile": {
      "format": "mp3",
      "chapters": [
        "Mowgli's Brothers",
        "Kaa's Hunting",
        "Tiger! Tiger!"
      ],
      "chapterSeconds": 2
    }
  },
  {
    "id": "urn:uuid:7d3c001a-5a1e-4c6b-9f0e-d0c5e1f0001a",
    "title": "Peter Pan",
    "authors": [
      "J. M. Barrie"
    ],
    "narrators": [
      "Jonah Brightwell"
    ],
    "summary": "<p>The boy who would not grow up teaches the Darling children to fly to Neverland. One Ogg Vorbis file with chapter comments, offered as a plain download.</p>",
    "publisher": "Shelf Demo Files",
    "issued": "1911-10-11",
    "language": "en",
    "categories": [
      "Fantasy"
    ],
    "audience": "Children",
    "distributor": "Shelf Demo Files",
    "medium": "audiobook",
    "duration": 6.0,
    "published": "2024-04-03T00:00:00Z",
    "updated": "2024-04-03T09:00:00Z",
    "license": {
      "openAccess": true
    },
    "singleFile": {
      "format": "ogg",
      "chapters": [
        "Peter Breaks Through",
        "The Shadow",
        "Come Away, Come Away!"
      ],
      "chapterSeconds": 2
    }
  },
  {
    "id": "urn:uuid:7d3c001b-5a1e-4c6b-9f0e-d0c5e1f0001b",
    "title": "The Wind in the Willows",
    "authors": [
      "Kenneth Grahame"
    ],
    "narrators": [
      "Rosalind Hale"
    ],
    "summary": "<p>Mole, Rat, Badger and the irrepressible Toad of Toad Hall by the river. A zip of mp3 files, one per chapter, offered as a plain download.</p>",
    "publisher": "Shelf Demo Files",
    "issued": "1908-06-15",
    "language": "en",
    "categories": [
      "Classics",
      "Fantasy"
    ],
    "audience": "Children",
    "distributor": "Shelf Demo Files",
    "medium": "audiobook",
    "duration": 6.0,
    "published": "2024-04-04T00:00:00Z",
    "updated": "2024-04-04T09:00:00Z",
    "license": {
      "openAccess": true
    },
    "singleFile": {
      "format": "zip",
      "chapters": [
        "The River Bank",
        "The Open Road",
        "The Wild Wood"
      ],
      "chapterSeconds": 2
    }
  }
]
"""#
}
